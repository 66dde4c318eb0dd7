#!/usr/bin/env bash
# Throughput and peak memory of abx's streams, against curl doing the same
# transfer through the same gateway, on the local emulator (loopback).
#
#   bash bench/transfer.sh [MiB]        (default 256)
#
# Needs curl, python3 and GNU time (/usr/bin/time). Prints a Markdown table;
# docs/performance.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=${1:-256}
BYTES=$((MIB * 1024 * 1024))
work=$(mktemp -d)
trap 'kill "$emu" 2>/dev/null || true; wait "$emu" 2>/dev/null || true; rm -rf "$work"' EXIT

# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
hdr=(-H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" -H "X-Access-Token: $token" -H "Authorization: Basic dXNlcjo=")
head -c "$BYTES" /dev/urandom > "$work/big.bin"

# run LABEL CMD...: wall seconds and peak RSS (KiB) of CMD
run() {
	local label=$1; shift
	/usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; return 1; }
	read -r secs kib < "$work/t"
	python3 - "$label" "$secs" "$kib" "$MIB" <<'PY'
import sys
label, secs, kib, mib = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"| {label} | {mib} MiB | {secs:.2f} s | {mib / max(secs, 0.001):.0f} MiB/s | {kib / 1024:.1f} MiB |")
PY
}

# A Connect server-stream request for Start, JSON codec, enveloped.
python3 - "$BYTES" > "$work/start.body" <<'PY'
import json, struct, sys
msg = json.dumps({"process": {"cmd": "/bin/bash", "args": ["-l", "-c", f"exec </dev/null; head -c {sys.argv[1]} /dev/zero"]}}).encode()
sys.stdout.buffer.write(b"\x00" + struct.pack(">I", len(msg)) + msg)
PY

echo "| transfer | size | time | throughput | peak RSS |"
echo "| --- | --- | --- | --- | --- |"
run "abx exec (stdout)" "$abx" exec "$id" -- "head -c $BYTES /dev/zero"
run "curl Connect Start (JSON)" curl -fsS "${hdr[@]}" -H "Content-Type: application/connect+json" \
	--data-binary "@$work/start.body" "$envd/process.Process/Start" -o /dev/null
run "abx files write" "$abx" files write "$id" big.bin --from "$work/big.bin"
run "curl POST /files (multipart)" curl -fsS "${hdr[@]}" -F "file=@$work/big.bin" "$envd/files?path=big2.bin&username=user" -o /dev/null
run "abx files read" "$abx" files read "$id" big.bin --out "$work/back.bin"
run "curl GET /files" curl -fsS "${hdr[@]}" "$envd/files?path=big.bin&username=user" -o "$work/back2.bin"
cmp "$work/big.bin" "$work/back.bin"
"$abx" kill "$id" > /dev/null 2>&1
