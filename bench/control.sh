#!/usr/bin/env bash
# The control plane against its floor, on the local emulator: 'abx list'
# of N sandboxes against curl reading the same pages (the cursors followed
# by a shell loop), and 'abx kill --all' of N against curl deleting them
# one after another. Paired runs, order alternating.
#
#   bash bench/control.sh [N]        (default 200; REPS=5)
#
# Needs curl, python3, bash 5 and GNU time. Prints a Markdown table;
# docs/performance.md records a run. Never fails on a time.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
REPS=${REPS:-5}
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

# make_sandboxes: N of them, 20 at a time (a bare wait would wait for the
# emulator too).
make_sandboxes() {
	local i pids=()
	for i in $(seq "$N"); do
		"$abx" create --template base -q > /dev/null &
		pids+=($!)
		if (( ${#pids[@]} == 20 )); then wait "${pids[@]}"; pids=(); fi
	done
	if (( ${#pids[@]} )); then wait "${pids[@]}"; fi
}

# The floor of list: every page, following x-next-token, as a shell would.
cat > "$work/curl-list.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
next=
while :; do
	next=\$(curl -fsS -D - -o /dev/null ${key[*]@Q} "$api/v2/sandboxes?limit=100\${next:+&nextToken=\$next}" |
		tr -d '\r' | awk -F': ' 'tolower(\$1) == "x-next-token" {print \$2}')
	[ -n "\$next" ] || break
done
EOF
# The floor of kill --all: list, then one DELETE after another.
cat > "$work/curl-kill.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
for id in \$("$abx" list -o name); do
	curl -fsS -o /dev/null -X DELETE ${key[*]@Q} "$api/sandboxes/\$id"
done
EOF

row() {
	python3 - "$@" <<'PY'
import statistics, sys
label, n, abx, floor, target = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
def load(p):
    rows = [l.split() for l in open(p) if l.strip()]
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]
a, rss = load(abx)
f, _ = load(floor)
ma, mf = statistics.median(a), statistics.median(f)
ratio = ma / max(mf, 0.001)
print(f"| {label} | {n} | {ma:.3f} s ({min(a):.3f}–{max(a):.3f}) | {mf:.3f} s ({min(f):.3f}–{max(f):.3f}) | "
      f"{ratio:.2f}× the time | {max(rss) / 1024:.1f} MiB | {'yes' if ratio <= target else 'NO'} (≤ {target:g}×) |")
PY
}

echo "| command | sandboxes | abx: median (min–max) | floor | abx / floor | abx peak RSS | target holds |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
make_sandboxes
: > "$work/list.abx"; : > "$work/list.floor"
for rep in $(seq "$REPS"); do
	for side in $( ((rep % 2)) && echo "abx floor" || echo "floor abx"); do
		if [ "$side" = abx ]; then
			timed "$work/list.abx" "$abx" list -o json
		else
			timed "$work/list.floor" bash "$work/curl-list.sh"
		fi
	done
done
# list within 1/0.8 of curl's time, the throughput target
row "abx list -o json" "$N" "$work/list.abx" "$work/list.floor" 1.25

: > "$work/kill.abx"; : > "$work/kill.floor"
for rep in $(seq "$REPS"); do
	for side in $( ((rep % 2)) && echo "abx floor" || echo "floor abx"); do
		make_sandboxes
		if [ "$side" = abx ]; then
			timed "$work/kill.abx" "$abx" kill --all --yes
		else
			timed "$work/kill.floor" bash "$work/curl-kill.sh"
		fi
	done
done
# kill --all in parallel: well under a sequential loop's time
row "abx kill --all --yes" "$N" "$work/kill.abx" "$work/kill.floor" 0.5
