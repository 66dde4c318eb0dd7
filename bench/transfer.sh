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
trap 'kill "$emu" 2>/dev/null || true; wait "$emu" 2>/dev/null || true; rm -rf "$work"' EXIT

# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
hdr=(-H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" -H "X-Access-Token: $token" -H "Authorization: Basic dXNlcjo=")

# start_body LINE: a Connect Start request in the binary codec, enveloped,
# for /bin/bash -c LINE: what abx sends, less its process-group wrapper.
start_body() {
	python3 - "$1" <<'PY'
import struct, sys
def field(n, b):  # a length-delimited protobuf field
    out, size = bytes([n << 3 | 2]), len(b)
    while size >= 0x80:
        out += bytes([size & 0x7f | 0x80]); size >>= 7
    return out + bytes([size]) + b
config = field(1, b"/bin/bash") + field(2, b"-c") + field(2, sys.argv[1].encode())
sys.stdout.buffer.write(b"\x00" + struct.pack(">I", len(field(1, config))) + field(1, config))
PY
}

# timed OUT CMD...: appends "seconds peak-KiB" of one run of CMD to OUT.
timed() {
	local out=$1; shift
	/usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; return 1; }
	cat "$work/t" >> "$out"
}

# row LABEL MIB ABX FLOOR: one Markdown row from two files of timings.
row() {
	python3 - "$@" <<'PY'
import statistics, sys
label, mib, abx, floor = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def load(p):
    rows = [l.split() for l in open(p) if l.strip()]
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]
a, arss = load(abx)
f, _ = load(floor)
ma, mf = statistics.median(a), statistics.median(f)
ratio = mf / max(ma, 0.001)
print(f"| {label} | {mib} MiB | {ma:.2f} s ({min(a):.2f}–{max(a):.2f}) | {mf:.2f} s ({min(f):.2f}–{max(f):.2f}) | "
      f"{ratio:.2f}× | {max(arss) / 1024:.1f} MiB | {'yes' if ratio >= 0.8 and max(arss) <= 50 * 1024 else 'NO'} |")
PY
}

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
	row "exec (stdout; Connect Start, proto)" "$mib" "$work/exec.abx" "$work/exec.floor"
	row "files write (POST /files, multipart)" "$mib" "$work/write.abx" "$work/write.floor"
	row "files read (GET /files)" "$mib" "$work/read.abx" "$work/read.floor"
	rm -f "$work/big.bin" "$work/back.bin" "$work/back2.bin"
done
"$abx" kill "$id" > /dev/null 2>&1
