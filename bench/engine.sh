#!/usr/bin/env bash
# The local engine's cost: the same client (curl, Connect's binary codec and
# the same multipart body) moving the same bytes to a sandbox of the local
# emulator directly and through `abx provider engine serve`, paired run by
# run, and the engine's peak memory at each size.
#
#   bash bench/engine.sh [MiB...]        (default: 16 256; REPS=5)
#
# Needs curl, python3 and bash 5. Prints a Markdown table; docs/engine.md
# records a run. The engine passes for a size when its median throughput is
# at least 0.8x the direct path's and its peak RSS stays under 50 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a SIZES <<< "${*:-16 256}"
REPS=${REPS:-5}
work=$(mktemp -d)
emu= engine=
trap 'echo "failed; the engine said:" >&2; tail -20 "$work/engine.err" >&2' ERR
trap 'for p in $engine $emu; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
# shellcheck source=bench/lib.sh
source bench/lib.sh
direct_hdr=(-H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" -H "X-Access-Token: $token" -H "Authorization: Basic dXNlcjo=")
engine_token=abx_eng_bench
engine_hdr=(-H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" -H "X-Access-Token: $engine_token" -H "Authorization: Basic dXNlcjo=")

# timed MIN_BYTES CURL_ARGS...: prints the wall seconds of one curl, which
# must succeed and move at least MIN_BYTES.
timed() {
	local min=$1; shift
	local t0=$EPOCHREALTIME
	local moved
	if ! moved=$(curl -fsS -o /dev/null -w '%{size_download} %{size_upload}' "$@"); then
		echo "failed: curl ${*: -1}" >&2
		return 1
	fi
	local t1=$EPOCHREALTIME
	read -r down up <<< "$moved"
	if (( down < min && up < min )); then
		echo "curl $* moved only $moved bytes" >&2
		return 1
	fi
	python3 -c "print(f'{$t1 - $t0:.4f}')"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| transfer | size | direct (median of $REPS) | through the engine | engine / direct | engine peak RSS |"
echo "| --- | --- | --- | --- | --- | --- |"
for mib in "${SIZES[@]}"; do
	bytes=$((mib * 1024 * 1024))
	start_body "exec </dev/null; head -c $bytes /dev/zero" > "$work/start.body"
	head -c "$bytes" /dev/urandom > "$work/up.bin"
	# A fresh engine per size, so its peak memory is this size's.
	"$abx" provider engine serve --addr 127.0.0.1:0 --token "$engine_token" > "$work/engine.env" 2> "$work/engine.err" &
	engine=$!
	for _ in $(seq 100); do grep -q E2B_API_URL "$work/engine.env" 2>/dev/null && break; sleep 0.1; done
	# shellcheck disable=SC1091
	source "$work/engine.env"
	exec_args=(-H "Content-Type: application/connect+proto" -H "Connect-Protocol-Version: 1" --data-binary "@$work/start.body")
	upload_args=(-F "file=@$work/up.bin")
	: > "$work/exec.direct"; : > "$work/exec.engine"; : > "$work/up.direct"; : > "$work/up.engine"
	for rep in $(seq "$REPS"); do
		# Paired, and the order alternates, so neither side always runs warm.
		for side in $( ((rep % 2)) && echo "direct engine" || echo "engine direct"); do
			if [ "$side" = direct ]; then
				url=$envd hdr=("${direct_hdr[@]}")
			else
				url=$E2B_API_URL hdr=("${engine_hdr[@]}")
			fi
			timed "$bytes" "${hdr[@]}" "${exec_args[@]}" "$url/process.Process/Start" >> "$work/exec.$side"
			timed "$bytes" "${hdr[@]}" "${upload_args[@]}" "$url/files?path=up.bin&username=user" >> "$work/up.$side"
		done
	done
	hwm_kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$engine/status")
	kill -INT "$engine"; wait "$engine" || true; engine=
	for kind in exec up; do
		d=$(median < "$work/$kind.direct"); e=$(median < "$work/$kind.engine")
		label=$([ "$kind" = exec ] && echo "command output (Connect Start, proto)" || echo "upload (POST /files, multipart)")
		python3 - "$label" "$mib" "$d" "$e" "$hwm_kib" <<'PY'
import sys
label, mib, d, e, kib = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
print(f"| {label} | {mib} MiB | {d:.3f} s ({mib / d:.0f} MiB/s) | {e:.3f} s ({mib / e:.0f} MiB/s) | {d / e:.2f}x | {kib / 1024:.1f} MiB |")
PY
	done
done
"$abx" kill "$id" > /dev/null 2>&1
