#!/usr/bin/env bash
# abx run against the three commands it replaces, on the local emulator:
# 'abx run --template base -- true' against 'abx create', 'abx exec ID --
# true' and 'abx kill ID' run one after another by a shell, as a script
# does without run. Paired runs, order alternating. Target: run <= 1.1x
# the three's time (its lease's renewals are not in it: a job this short
# renews nothing).
#
#   bash bench/run.sh        (REPS=20)
#
# Needs python3, bash 5 and GNU time. Prints a Markdown table;
# docs/performance.md records a run. Never fails on a time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-20}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
"$abx" kill "$id" > /dev/null 2>&1

cat > "$work/three.sh" <<THREE
#!/usr/bin/env bash
set -euo pipefail
id=\$("$abx" create --template base -q)
"$abx" exec "\$id" -- true
"$abx" kill "\$id" > /dev/null 2>&1
THREE

# mstimed OUT CMD...: appends "seconds peak-KiB" of one run of CMD to OUT,
# the time from the shell's clock (GNU time's is in hundredths: too coarse
# for a job of milliseconds), the same way for both sides.
mstimed() {
	local out=$1 t0 t1; shift
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%M" -o "$work/m" "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; return 1; }
	t1=$EPOCHREALTIME
	echo "$t0 $t1 $(cat "$work/m")" | awk '{printf "%.6f %s\n", $2 - $1, $3}' >> "$out"
}

: > "$work/run"; : > "$work/three"
# One untimed run each: the first command of a fresh emulator boots more.
"$abx" run --template base -- true > /dev/null 2>&1
bash "$work/three.sh"
for rep in $(seq "$REPS"); do
	for side in $( ((rep % 2)) && echo "run three" || echo "three run"); do
		if [ "$side" = run ]; then
			mstimed "$work/run" "$abx" run --template base -- true
		else
			mstimed "$work/three" bash "$work/three.sh"
		fi
	done
done
left=$("$abx" list -o name | wc -l)

python3 - "$work/run" "$work/three" "$REPS" "$left" <<'PY'
import statistics, sys
def load(p):
    rows = [l.split() for l in open(p) if l.strip()]
    return [float(r[0]) * 1000 for r in rows], [int(r[1]) for r in rows]
r, rss = load(sys.argv[1])
t, _ = load(sys.argv[2])
mr, mt = statistics.median(r), statistics.median(t)
ratio = mr / max(mt, 0.001)
print(f"`abx run -- true` against create, exec and kill one after another, {sys.argv[3]} runs each, paired:\n")
print("| what | median (min–max) | × the three | abx run peak RSS | ≤ 1.1× |")
print("| --- | --- | --- | --- | --- |")
print(f"| abx run --template base -- true | {mr:.1f} ms ({min(r):.1f}–{max(r):.1f}) | {ratio:.2f}× | {max(rss) / 1024:.1f} MiB | {'yes' if ratio <= 1.1 else 'NO'} |")
print(f"| abx create; abx exec ID -- true; abx kill ID | {mt:.1f} ms ({min(t):.1f}–{max(t):.1f}) | 1.00× | – | – |")
print(f"\nsandboxes left afterwards: {sys.argv[4]}")
PY
