#!/usr/bin/env bash
# Wall time of the plain test run, `go test -count=1 ./...`, at two
# revisions of this repository, paired: the like-for-like measure of what a
# change does to the time the tests take (docs/architecture.md, "Tests").
#
#   bash bench/testsuite.sh BASE [REV]       # REV defaults to HEAD
#   N=5 PKGS=./internal/cmd/... bash bench/testsuite.sh HEAD~3
#   FLAGS=-race bash bench/testsuite.sh HEAD  # the project's test command
#
# The targets (docs/architecture.md): the plain run within 120 s and the
# -race run within 5 minutes on the 2-core machine.
#
# Each revision is checked out into a worktree of its own and compiled
# once, untimed, so that both runs start from a warm build cache. Then the
# two run in turn, REV BASE REV BASE ..., N times each (default 3), so that
# a machine whose speed drifts slows both alike; the ratio is taken pair by
# pair. Test results are never cached (-count=1); test binaries are linked
# on every run, as a developer's run links them. A run that fails is shown
# as failed and left out of the figures. Prints a Markdown table. The script
# fails only when a revision cannot be checked out or built.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: bash bench/testsuite.sh BASE [REV]" >&2; exit 2; }
base=$1
rev=${2:-HEAD}
N=${N:-3}
PKGS=${PKGS:-./...}
FLAGS=${FLAGS:-}
work=$(mktemp -d)
cleanup() {
	git worktree remove --force "$work/rev" 2> /dev/null || true
	git worktree remove --force "$work/base" 2> /dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

for side in rev base; do
	git worktree add --quiet --detach "$work/$side" "${!side}"
	# Compiles every package and test binary, runs no test.
	(cd "$work/$side" && go test $FLAGS -count=1 -run '^$' $PKGS > /dev/null)
done

# one SIDE: appends the wall seconds of one run to $work/SIDE.times, or
# "failed".
one() {
	local start end
	start=$EPOCHREALTIME
	if (cd "$work/$1" && go test $FLAGS -count=1 $PKGS > "$work/$1.log" 2>&1); then
		end=$EPOCHREALTIME
		echo "$start $end" | awk '{printf "%.2f\n", $2 - $1}' >> "$work/$1.times"
	else
		echo failed >> "$work/$1.times"
		echo "bench/testsuite.sh: a run at $1 failed:" >&2
		grep -E -- '^(--- FAIL|    --- FAIL|FAIL|panic:)' "$work/$1.log" | head -20 >&2 || tail -5 "$work/$1.log" >&2
	fi
}
for _ in $(seq "$N"); do
	one rev
	one base
done

python3 - "$rev" "$base" "$FLAGS $PKGS" "$work/rev.times" "$work/base.times" <<'PY'
import statistics, sys
rev, base, pkgs, a_path, b_path = sys.argv[1:6]
pkgs = pkgs.strip()
a = [l.strip() for l in open(a_path)]
b = [l.strip() for l in open(b_path)]
def row(name, xs):
    ok = [float(x) for x in xs if x != "failed"]
    failed = len(xs) - len(ok)
    if not ok:
        return f"| {name} | every run failed |"
    note = f", {failed} failed" if failed else ""
    return f"| {name} | {statistics.median(ok):.1f} s ({min(ok):.1f}–{max(ok):.1f}{note}) |"
print(f"`go test -count=1 {pkgs}`, {len(a)} runs each, in turn:\n")
print("| revision | wall: median (min–max) |")
print("| --- | --- |")
print(row(rev, a))
print(row(base, b))
pairs = [float(x) / float(y) for x, y in zip(a, b) if "failed" not in (x, y)]
if pairs:
    print(f"\n{rev} / {base}, pair by pair: median {statistics.median(pairs):.2f}× "
          f"({min(pairs):.2f}–{max(pairs):.2f}×)")
PY
