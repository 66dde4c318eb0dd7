#!/usr/bin/env bash
# abx's streams against their true floor: curl moving the same bytes
# through the same gateway with the same wire format (Connect's binary
# codec for command output, the same multipart body for uploads, the raw
# bytes for downloads), on the local emulator, paired run by run. An
# upload's floor does what abx's does: the body to a new temporary name,
# then a Move over the destination, so that no reader sees a part of it
# (an upload in place is cheaper, since truncating the old file drops its
# unwritten pages, but promises less).
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

# The upload's floor: the multipart body to a new name, then the rename.
cat > "$work/curl-write.sh" <<WRITE
#!/usr/bin/env bash
set -euo pipefail
n=\$RANDOM\$RANDOM
curl -fsS ${hdr[*]@Q} -F "file=@$work/big.bin" "$envd/files?path=/home/user/.up2.bin.\$n&username=user" -o /dev/null
curl -fsS ${hdr[*]@Q} -H 'Content-Type: application/json' -H 'Connect-Protocol-Version: 1' \\
	-d "{\"source\":\"/home/user/.up2.bin.\$n\",\"destination\":\"/home/user/up2.bin\"}" "$envd/filesystem.Filesystem/Move" -o /dev/null
WRITE

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
				timed "$work/write.floor" bash "$work/curl-write.sh"
				timed "$work/read.floor" curl -fsS "${hdr[@]}" "$envd/files?path=big.bin&username=user" -o "$work/back2.bin"
			fi
		done
	done
	cmp "$work/big.bin" "$work/back.bin"
	throughput_row "exec (stdout; Connect Start, proto)" "$mib" "$work/exec.abx" "$work/exec.floor"
	throughput_row "files write (POST /files, multipart, then Move)" "$mib" "$work/write.abx" "$work/write.floor"
	throughput_row "files read (GET /files)" "$mib" "$work/read.abx" "$work/read.floor"
	rm -f "$work/big.bin" "$work/back.bin" "$work/back2.bin"
done
"$abx" kill "$id" > /dev/null 2>&1
