#!/usr/bin/env bash
# Snapshots on the local emulator, each paired in one run, order
# alternating, with its floor (issue targets in docs/performance.md):
#
#   - abx snapshot create of a sandbox holding MIB MiB of files, against
#     cp -a of those files on the same disk (<= 1.5x);
#   - a clone from that snapshot (abx create --template SNAP) against a
#     plain abx create of the template (<= 1.5x);
#   - abx fork -n 10 against one clone (<= 3x).
#
#   bash bench/snapshots.sh [MIB]     (default 100; REPS=10)
#
# Needs python3, bash 5 and GNU time. Prints a Markdown table;
# docs/performance.md records a run. Never fails on a time.
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=${1:-100}
REPS=${REPS:-10}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh

# MIB files of 1 MiB in the sandbox's home, written and on disk.
"$abx" exec "$id" -- "mkdir -p data && for i in \$(seq $MIB); do head -c 1048576 /dev/urandom > data/f\$i; done; sync" > /dev/null
home="$work/state/sandboxes/$id/home/user"
[ -d "$home/data" ] || { echo "bench/snapshots.sh: the sandbox's files are not at $home" >&2; exit 1; }

# mstimed OUT CMD...: appends the seconds of one run of CMD to OUT, from
# the shell's clock, the same way for both sides.
mstimed() {
	local out=$1 t0 t1; shift
	t0=$EPOCHREALTIME
	"$@" > "$work/last" 2> "$work/err" || { cat "$work/err" >&2; return 1; }
	t1=$EPOCHREALTIME
	echo "$t0 $t1" | awk '{printf "%.6f\n", $2 - $1}' >> "$out"
}
# The floor copies as the snapshot does: no sync, into a new directory
# (the last one removed outside the timing).
copy() { cp -a "$home" "$work/copy"; }
snap() { "$abx" snapshot create "$id" -q; }

: > "$work/snap"; : > "$work/cp"; : > "$work/clone"; : > "$work/create"; : > "$work/fork"; : > "$work/one"
for rep in $(seq "$REPS"); do
	if ((rep % 2)); then
		mstimed "$work/snap" snap; s=$(cat "$work/last"); mstimed "$work/cp" copy
	else
		mstimed "$work/cp" copy; mstimed "$work/snap" snap; s=$(cat "$work/last")
	fi
	rm -rf "$work/copy"
	for side in $( ((rep % 2)) && echo "clone create" || echo "create clone"); do
		if [ "$side" = clone ]; then
			mstimed "$work/clone" "$abx" create --template "$s" -q
		else
			mstimed "$work/create" "$abx" create --template base -q
		fi
	done
	for side in $( ((rep % 2)) && echo "fork one" || echo "one fork"); do
		if [ "$side" = fork ]; then
			mstimed "$work/fork" "$abx" fork "$id" -n 10 -q
		else
			mstimed "$work/one" "$abx" create --template "$s" -q
		fi
	done
	# The clones and snapshots made go, so that the next repetition
	# starts from the same emulator.
	"$abx" list -o name | grep -vx "$id" | xargs -r "$abx" kill > /dev/null 2>&1
	"$abx" snapshot list -o name | xargs -r "$abx" snapshot delete > /dev/null 2>&1
done

python3 - "$work" "$REPS" "$MIB" <<'PY'
import statistics, sys
work, reps, mib = sys.argv[1:4]
def load(name):
    return [float(l) * 1000 for l in open(f"{work}/{name}") if l.strip()]
def fig(v):
    return f"{statistics.median(v):.0f} ms ({min(v):.0f}–{max(v):.0f})"
rows = [("abx snapshot create, the sandbox holding %s MiB" % mib, "snap", "cp -a of those files, same disk", "cp", 1.5),
        ("a clone of it (abx create --template SNAP)", "clone", "abx create --template base", "create", 1.5),
        ("abx fork -n 10", "fork", "one clone", "one", 3.0)]
print(f"Snapshots on the emulator, {reps} runs each, paired, order alternating:\n")
print("| what | median (min–max) | floor | floor median (min–max) | × the floor | target | holds |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for what, a, floor, b, target in rows:
    va, vb = load(a), load(b)
    r = statistics.median(va) / max(statistics.median(vb), 0.001)
    print(f"| {what} | {fig(va)} | {floor} | {fig(vb)} | {r:.2f}× | ≤ {target}× | {'yes' if r <= target else 'NO'} |")
PY
