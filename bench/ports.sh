#!/usr/bin/env bash
# A port served in an emulated sandbox, through the gateway, against its
# floor: the same transfer from the same server on this machine's loopback.
#
#   bash bench/ports.sh [MIB]          (default 256; REPS=10)
#
# The same server (python3 -m http.server) serves a file of MIB MiB in
# three places: in a sandbox with internet access and in one made with
# --no-internet (each a network of its own where sandboxes are isolated:
# the gateway reaches their ports through their boxes' inits; without
# isolation both share this machine's), and on this machine's loopback
# (the floor). curl fetches the file REPS times from each, in turn, the order
# rotating each repetition; the gateway's are `abx url`'s URLs. Target:
# each sandbox's throughput ≥ 0.8× the floor's, paired.
#
# Needs curl, python3 and /usr/bin/time. Prints Markdown;
# docs/performance.md records a run. Never fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=${1:-256}
REPS=${REPS:-10}
work=$(mktemp -d)
emu=
floor=
trap 'stop "$floor" "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
own=$("$abx" create --template base --timeout 2h --no-internet -q)

# Ports no other benchmark takes; without isolation a sandbox's is this
# machine's, so the floor's differs.
port=28471
floor_port=28472
mkdir -p "$work/www"
head -c "$((MIB << 20))" /dev/urandom > "$work/www/blob"
python3 -m http.server "$floor_port" --bind 127.0.0.1 --directory "$work/www" > /dev/null 2>&1 &
floor=$!
for sbx in "$id" "$own"; do
	"$abx" exec "$sbx" -- "mkdir -p www && head -c $((MIB << 20)) /dev/urandom > www/blob" > /dev/null
	"$abx" exec "$sbx" --background -- "python3 -m http.server $port --bind 127.0.0.1 --directory www" > /dev/null
done
urls=("$("$abx" url "$id" "$port")/blob" "$("$abx" url "$own" "$port")/blob" "http://127.0.0.1:$floor_port/blob")
names=(shared own floor)
for u in "${urls[@]}"; do
	for _ in $(seq 100); do curl -fsS -o /dev/null "$u" 2> /dev/null && break; sleep 0.1; done
done

for r in $(seq "$REPS"); do
	for k in 0 1 2; do
		i=$(((k + r) % 3))
		timed "$work/${names[$i]}" curl -fsS -o /dev/null "${urls[$i]}"
	done
done

echo "A file of $MIB MiB fetched with curl, $REPS runs each, in turn:"
echo
python3 - "$MIB" "$work/shared" "$work/own" "$work/floor" <<'PY'
import statistics, sys
mib = int(sys.argv[1])
def load(p):
    return [float(l.split()[0]) for l in open(p) if l.strip()]
shared, own, floor = (load(p) for p in sys.argv[2:5])
mf = statistics.median(floor)
rate = lambda t: mib / max(t, 0.001)
print("| from | median (min–max) | MiB/s | × the floor's throughput | target | holds |")
print("| --- | --- | --- | --- | --- | --- |")
for label, ts in (("a sandbox with internet access, through the gateway", shared),
                  ("a sandbox made with --no-internet, through the gateway", own),
                  ("floor: the same server on this machine's loopback", floor)):
    m = statistics.median(ts)
    ratio = mf / max(m, 0.001)
    target, holds = ("≥ 0.8×", "yes" if ratio >= 0.8 else "NO") if ts is not floor else ("–", "–")
    print(f"| {label} | {m:.2f} s ({min(ts):.2f}–{max(ts):.2f}) | {rate(m):.0f} | {ratio:.2f}× | {target} | {holds} |")
PY
