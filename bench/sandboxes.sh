#!/usr/bin/env bash
# The emulator's sandboxes: how long one takes to make and to run its
# first command (its box, a PID namespace with its view, starts then),
# what a further command costs against its floor, and what N of them
# alive at once cost.
#
#   bash bench/sandboxes.sh [N]        (default 100; REPS=20)
#
# 1. REPS times, in turn, from one client on one kept-alive connection
#    (python3's http.client: no client start-up in any figure): a create
#    through the API (the target, 150 ms, is this one's); after a pause
#    (0.3 s: that sandbox's box has booted, the emulator is idle), a create
#    and the sandbox's first command through envd to its end (≤ 50 ms);
#    then at once the same again, back to back (no target: it shows what
#    a client that makes sandboxes without a pause sees, while the last
#    one's work and the emulator's next spare init share the cores); and
#    a further command, paired in the same repetition with its floor: the
#    same `bash -l -c true` (what the official SDKs send) started in fresh
#    user, mount and PID namespaces by unshare(1) (≤ 2× the floor; "–"
#    where unshare cannot make them).
# 2. N sandboxes made at once, each running a detached sleep in its box;
#    then how many boxes run, their inits' memory (RSS and PSS, summed and
#    each; ≤ 2 MiB PSS an init), and how long `abx kill --all` takes to
#    end them all.
#
# Needs curl, python3, unshare and bash 5. Prints Markdown;
# docs/performance.md records a run. Never fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100}
REPS=${REPS:-20}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
"$abx" kill "$id" > /dev/null 2>&1
api=$ABX_ALICLOUD_CONTAINER_BASE_URL
key=(-H "X-API-Key: $ABX_ALICLOUD_CONTAINER_API_KEY")
start_body 'true' -l > "$work/true.bin"
mkdir "$work/home"

python3 - "$base" "$ABX_ALICLOUD_CONTAINER_API_KEY" "$work/true.bin" "$work/home" "$REPS" <<'PY'
import base64, http.client, json, os, statistics, subprocess, sys, time, urllib.parse
base, key, body_path, home, reps = sys.argv[1:6]
body = open(body_path, "rb").read()
url = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(url.hostname, url.port)

def call(method, path, payload, headers):
    conn.request(method, path, payload, headers)
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        sys.exit(f"bench/sandboxes.sh: {method} {path}: HTTP {r.status}: {data[:200]!r}")
    return data

def create():
    reply = json.loads(call("POST", "/kruise/api/sandboxes", b'{"templateID":"base","timeout":600}',
                            {"X-API-Key": key, "Content-Type": "application/json"}))
    return reply["sandboxID"], reply["envdAccessToken"]

user = "Basic " + base64.b64encode(b"user:").decode()
def run(sid, tok):
    # The whole stream, to its end; an error in it fails the run.
    data = call("POST", f"/kruise/{sid}/49983/process.Process/Start", body,
                {"X-Access-Token": tok, "Authorization": user, "Connect-Protocol-Version": "1",
                 "Content-Type": "application/connect+proto"})
    if b'"error"' in data:
        sys.exit(f"bench/sandboxes.sh: {data!r}")

# The floor: what a further command is made of, without the emulator.
floor_cmd = ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "bash", "-l", "-c", "true"]
floor_env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin"}
def floor():
    return subprocess.run(floor_cmd, env=floor_env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
has_floor = floor()

def ms(t0):
    return (time.perf_counter() - t0) * 1000

made, first, busy, again, flo = [], [], [], [], []
for i in range(int(reps)):
    t0 = time.perf_counter(); create(); made.append(ms(t0))
    time.sleep(0.3)
    t0 = time.perf_counter(); sid, tok = create(); run(sid, tok); first.append(ms(t0))
    t0 = time.perf_counter(); s2, t2 = create(); run(s2, t2); busy.append(ms(t0))
    # Paired: the command and its floor in turn, which first alternating.
    pair = [("cmd", lambda: run(sid, tok)), ("floor", floor)] if has_floor else [("cmd", lambda: run(sid, tok))]
    if i % 2:
        pair.reverse()
    for name, fn in pair:
        t0 = time.perf_counter(); fn(); (again if name == "cmd" else flo).append(ms(t0))

def fig(v):
    return f"{statistics.median(v):.1f} ms ({min(v):.1f}–{max(v):.1f})"
med = statistics.median
print(f"Making a sandbox and running commands, {reps} runs each, one client on a kept-alive connection:\n")
print("| what | median (min–max) | floor: `bash -l -c true` in fresh namespaces | × the floor | target | holds |")
print("| --- | --- | --- | --- | --- | --- |")
print(f"| create (its box boots in the background) | {fig(made)} | – | – | ≤ 150 ms | {'yes' if med(made) <= 150 else 'NO'} |")
print(f"| create, then its first command (`bash -l -c true`) to its end | {fig(first)} | – | – | ≤ 50 ms | {'yes' if med(first) <= 50 else 'NO'} |")
print(f"| the same, back to back with the last | {fig(busy)} | – | – | – | – |")
if flo:
    ratio = med(again) / med(flo)
    print(f"| a further command (`bash -l -c true`) to its end | {fig(again)} | {fig(flo)} | {ratio:.2f}× | ≤ 2× | {'yes' if ratio <= 2 else 'NO'} |")
else:
    print(f"| a further command (`bash -l -c true`) to its end | {fig(again)} | – (unshare cannot make namespaces here) | – | ≤ 2× | – |")
PY
"$abx" kill --all --yes > /dev/null 2>&1

# create: prints the new sandbox's ID and envd access token (read by
# bash alone: a parser's start-up is no part of making a sandbox).
create() {
	local reply sid tok
	reply=$(curl -fsS "${key[@]}" -H 'Content-Type: application/json' -d '{"templateID":"base","timeout":600}' "$api/sandboxes")
	sid=${reply#*\"sandboxID\":\"}; sid=${sid%%\"*}
	tok=${reply#*\"envdAccessToken\":\"}; tok=${tok%%\"*}
	echo "$sid $tok"
}

# run SANDBOX TOKEN BODY: runs a Start request's command in the sandbox
# through envd, as user, to its end; fails on an error in the stream.
user=(-H "Authorization: Basic $(printf 'user:' | base64)")
run() {
	local reply
	reply=$(curl -fsS -H "X-Access-Token: $2" "${user[@]}" -H 'Content-Type: application/connect+proto' \
		-H 'Connect-Protocol-Version: 1' --data-binary @"$3" "$base/kruise/$1/49983/process.Process/Start" | tr -d '\0')
	if [[ $reply == *'"error"'* ]]; then
		echo "bench/sandboxes.sh: $reply" >&2
		return 1
	fi
}

ms() { echo "$1 $2" | awk '{printf "%.1f\n", ($2 - $1) * 1000}'; }

# N alive at once, each with a detached sleep in its box.
start_body 'setsid sleep 600 > /dev/null 2>&1 < /dev/null &' > "$work/sleep.bin"
t0=$EPOCHREALTIME
pids=()
for _ in $(seq "$N"); do
	{
		read -r sid tok < <(create)
		run "$sid" "$tok" "$work/sleep.bin"
	} &
	pids+=($!)
	# a bare wait would wait for the emulator too
	if (( ${#pids[@]} == 20 )); then wait "${pids[@]}"; pids=(); fi
done
if (( ${#pids[@]} )); then wait "${pids[@]}"; fi
t1=$EPOCHREALTIME
# A box's init is the parent of its sleep; the others are the emulator's
# spare inits, waiting for a box, counted apart.
inits=() spares=0
for p in $(pgrep -f '^abx-sandbox-init$'); do
	if pgrep -P "$p" > /dev/null; then inits+=("$p"); else spares=$((spares + 1)); fi
done
boxes=${#inits[@]}
sleeping=$(pgrep -fc '^sleep 600$' || true)
rss=$(ps -o rss= -p "$(IFS=,; echo "${inits[*]:-1}")" | awk '{s += $1} END {printf "%.0f", s / 1024}')
# PSS shares each page among the processes that map it: the binary's
# text, which every init maps, counts once in all.
pss_kib=$(for p in "${inits[@]}"; do grep '^Pss:' "/proc/$p/smaps_rollup" 2> /dev/null; done |
	awk '{s += $2} END {printf "%.0f", s}')
pss=$(( pss_kib / 1024 ))
t2=$EPOCHREALTIME
"$abx" kill --all --yes > /dev/null 2>&1
t3=$EPOCHREALTIME
for _ in $(seq 100); do [ "$(pgrep -fc '^sleep 600$' || true)" = 0 ] && break; sleep 0.05; done
t4=$EPOCHREALTIME
echo
echo "$N sandboxes at once, each running a detached sleep in its box, on $(nproc) cores:"
echo
echo "| what | figure |"
echo "| --- | --- |"
echo "| made, with their first command, 20 at a time | $(ms "$t0" "$t1") ms |"
echo "| boxes running / sleeps running / spare inits waiting | $boxes / $sleeping / $spares |"
echo "| the boxes' inits, memory in all: resident (RSS) / proportional (PSS) | $rss MiB / $pss MiB |"
echo "| PSS an init (≤ 2 MiB) | $(awk -v p="$pss_kib" -v n="$boxes" 'BEGIN {if (n > 0) {e = p / n / 1024; printf "%.2f MiB: %s", e, (e <= 2 ? "yes" : "NO")} else print "–"}') |"
echo "| \`abx kill --all\` | $(ms "$t2" "$t3") ms |"
echo "| until the last sleep ended | $(ms "$t2" "$t4") ms |"
