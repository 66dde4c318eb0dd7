#!/usr/bin/env bash
# abx's streams against their true floor: curl moving the same bytes
# through the same gateway with the same wire format (Connect's binary
# codec for command output, the same multipart body for uploads, the raw
# bytes for downloads), on the local emulator, paired run by run.
#
#   bash bench/transfer.sh [MiB...]        (default: 16 256 1024; REPS=5)
#
# Needs curl, python3, bash 5 and GNU time (/usr/bin/time). Each row is the
# median of REPS paired runs (order alternating), with min and max, and
# abx's largest peak RSS; a ratio is the floor's time over abx's (1.0: as
# fast as curl). docs/performance.md records a run. Prints; never fails on
# a time.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a SIZES <<< "${*:-16 256 1024}"
REPS=${REPS:-5}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
hdr=(-H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" -H "X-Access-Token: $token" -H "Authorization: Basic dXNlcjo=")

echo "| transfer | size | abx: median (min–max) | floor: curl, same wire | abx / floor | abx peak RSS | ≥ 0.8× and ≤ 50 MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for mib in "${SIZES[@]}"; do
	bytes=$((mib * 1024 * 1024))
	line="exec </dev/null; head -c $bytes /dev/zero"
	start_body "$line" > "$work/start.body"
	head -c "$bytes" /dev/urandom > "$work/big.bin"
	"$abx" files write "$id" big.bin --from "$work/big.bin" > /dev/null 2>&1
	for kind in exec write read; do : > "$work/$kind.abx"; : > "$work/$kind.floor"; done
	for rep in $(seq "$REPS"); do
		# Paired, and the order alternates, so neither side always runs warm.
		for side in $( ((rep % 2)) && echo "abx floor" || echo "floor abx"); do
			if [ "$side" = abx ]; then
				timed "$work/exec.abx" "$abx" exec "$id" -- "head -c $bytes /dev/zero"
				timed "$work/write.abx" "$abx" files write "$id" up.bin --from "$work/big.bin"
				timed "$work/read.abx" "$abx" files read "$id" big.bin --out "$work/back.bin"
			else
				timed "$work/exec.floor" curl -fsS "${hdr[@]}" -H "Content-Type: application/connect+proto" \
					-H "Connect-Protocol-Version: 1" --data-binary "@$work/start.body" "$envd/process.Process/Start" -o /dev/null
				timed "$work/write.floor" curl -fsS "${hdr[@]}" -F "file=@$work/big.bin" "$envd/files?path=up2.bin&username=user" -o /dev/null
				timed "$work/read.floor" curl -fsS "${hdr[@]}" "$envd/files?path=big.bin&username=user" -o "$work/back2.bin"
			fi
		done
	done
	cmp "$work/big.bin" "$work/back.bin"
	throughput_row "exec (stdout; Connect Start, proto)" "$mib" "$work/exec.abx" "$work/exec.floor"
	throughput_row "files write (POST /files, multipart)" "$mib" "$work/write.abx" "$work/write.floor"
	throughput_row "files read (GET /files)" "$mib" "$work/read.abx" "$work/read.floor"
	rm -f "$work/big.bin" "$work/back.bin" "$work/back2.bin"
done
"$abx" kill "$id" > /dev/null 2>&1
