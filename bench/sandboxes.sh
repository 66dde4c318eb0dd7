#!/usr/bin/env bash
# The emulator's sandboxes: how long one takes to make and to run its
# first command (its box, a PID namespace with its view, starts then),
# and what N of them alive at once cost.
#
#   bash bench/sandboxes.sh [N]        (default 100; REPS=20)
#
# 1. REPS times, in turn: a create through the API (curl, the server's own
#    cost; the target, 150 ms, is this one's), a create followed by the
#    sandbox's first command through envd, and one command more (curl
#    again: abx's own start-up is measured by startup.sh).
# 2. N sandboxes made at once, each running a detached sleep in its box;
#    then how many boxes run, their inits' memory (RSS and PSS, summed),
#    and how long `abx kill --all` takes to end them all.
#
# Needs curl, python3 and bash 5. Prints Markdown; docs/performance.md
# records a run. Never fails on a figure.
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
start_body 'true' > "$work/true.bin"

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

: > "$work/create"; : > "$work/first"; : > "$work/again"
for _ in $(seq "$REPS"); do
	t0=$EPOCHREALTIME
	read -r sid tok < <(create)
	t1=$EPOCHREALTIME
	ms "$t0" "$t1" >> "$work/create"
	t0=$EPOCHREALTIME
	read -r sid tok < <(create)
	run "$sid" "$tok" "$work/true.bin"
	t1=$EPOCHREALTIME
	ms "$t0" "$t1" >> "$work/first"
	t0=$EPOCHREALTIME
	run "$sid" "$tok" "$work/true.bin"
	t1=$EPOCHREALTIME
	ms "$t0" "$t1" >> "$work/again"
done
"$abx" kill --all --yes > /dev/null 2>&1

python3 - "$work/create" "$work/first" "$work/again" "$REPS" <<'PY'
import statistics, sys
def row(label, path, target):
    v = [float(l) for l in open(path) if l.strip()]
    med = statistics.median(v)
    holds = ("yes" if med <= 150 else "NO") if target else "–"
    return f"| {label} | {med:.1f} ms ({min(v):.1f}–{max(v):.1f}) | {holds} |"
print(f"Making a sandbox, {sys.argv[4]} runs each (curl through the emulator's gateway, its own start-up included):\n")
print("| what | median (min–max) | ≤ 150 ms (creation) |")
print("| --- | --- | --- |")
print(row("create (its box boots in the background)", sys.argv[1], True))
print(row("create, then its first command to its end", sys.argv[2], False))
print(row("a further command to its end (a command's own cost)", sys.argv[3], False))
PY

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
boxes=$(pgrep -fc '^abx-sandbox-init$' || true)
sleeping=$(pgrep -fc '^sleep 600$' || true)
rss=$(ps -o rss= -p "$(pgrep -fd, '^abx-sandbox-init$' || echo 1)" | awk '{s += $1} END {printf "%.0f", s / 1024}')
# PSS shares each page among the processes that map it: the binary's
# text, which every init maps, counts once in all.
pss=$(for p in $(pgrep -f '^abx-sandbox-init$'); do grep '^Pss:' "/proc/$p/smaps_rollup" 2> /dev/null; done |
	awk '{s += $2} END {printf "%.0f", s / 1024}')
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
echo "| boxes running / sleeps running | $boxes / $sleeping |"
echo "| the boxes' inits, memory in all: resident (RSS) / proportional (PSS) | $rss MiB / $pss MiB |"
echo "| \`abx kill --all\` | $(ms "$t2" "$t3") ms |"
echo "| until the last sleep ended | $(ms "$t2" "$t4") ms |"
