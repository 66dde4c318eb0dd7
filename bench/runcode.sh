#!/usr/bin/env bash
# run-code's rich results against their floor: curl posting the same code
# to the code interpreter's POST /execute with the same headers, on the
# local emulator, paired run by run. The code displays an image of N MiB,
# which arrives base64-encoded on one reply line.
#
#   bash bench/runcode.sh [MiB...]        (default: 1 4 16 32; REPS=5)
#
# abx runs twice a rep: saving the image (--save-dir, the table output)
# and printing the Execution (-o json to a file); curl writes the reply to
# a file. Needs curl, python3, bash 5 and GNU time (/usr/bin/time). Each
# row is the median of REPS paired runs (order alternating), with min and
# max, and abx's largest peak RSS; a ratio is curl's time over abx's (1.0:
# as fast as curl). Prints a Markdown table; never fails on a time.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a SIZES <<< "${*:-1 4 16 32}"
REPS=${REPS:-5}
work=$(mktemp -d)
emu= cid=
trap 'if [ -n "$cid" ]; then "$abx" kill "$cid" > /dev/null 2>&1 || true; fi
	stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
"$abx" kill "$id" > /dev/null 2>&1
# sandbox.sh makes a base sandbox; the code interpreter needs its template.
cid=$("$abx" create --template code-interpreter --timeout 2h -q) # outlives a long run, as in sandbox.sh
ctoken=$(curl -fsS -H "X-API-Key: $ABX_ALICLOUD_CONTAINER_API_KEY" "$base/kruise/api/sandboxes/$cid" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["envdAccessToken"])')
# What abx sends to /execute (abx --debug run-code shows them).
hdr=(-H "E2b-Sandbox-Id: $cid" -H "E2b-Sandbox-Port: 49999" -H "X-Access-Token: $ctoken"
	-H "Content-Type: application/json" -H "User-Agent: abx")
interp="$base/kruise/$cid/49999"

# The kernel keeps each size's bytes, so that a run times the reply, not
# the making of the image; the first run also starts the kernel.
"$abx" run-code "$cid" '_blobs = {}' > /dev/null

echo "| abx run-code | image | abx: median (min–max) | floor: curl POST /execute | curl / abx | abx peak RSS | ≥ 0.8× and ≤ 50 MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for mib in "${SIZES[@]}"; do
	code="class Blob:
    def _repr_png_(self):
        return _blobs.setdefault($mib, bytes(range(256)) * ($mib * 4096))
display(Blob())"
	python3 -c 'import json,sys; sys.stdout.write(json.dumps({"code": sys.argv[1], "language": "python"}))' "$code" > "$work/body.json"
	"$abx" run-code "$cid" "$code" > /dev/null 2>&1 # the kernel makes this size's bytes
	for kind in save json floor; do : > "$work/$kind"; done
	for rep in $(seq "$REPS"); do
		# Paired, and the order alternates, so neither side always runs warm.
		for side in $( ((rep % 2)) && echo "abx floor" || echo "floor abx"); do
			if [ "$side" = abx ]; then
				rm -rf "$work/out"
				timed "$work/save" "$abx" run-code "$cid" --save-dir "$work/out" "$code"
				timed "$work/json" sh -c '"$1" run-code "$2" -o json "$3" > "$4"' sh "$abx" "$cid" "$code" "$work/abx.reply"
			else
				timed "$work/floor" curl -fsS "${hdr[@]}" --data-binary "@$work/body.json" "$interp/execute" -o "$work/curl.reply"
			fi
		done
	done
	# What abx saved is the image, byte for byte.
	python3 - "$mib" "$work/out"/*.png <<'PY'
import sys
want = bytes(range(256)) * (int(sys.argv[1]) * 4096)
assert open(sys.argv[2], "rb").read() == want, "the saved image differs"
PY
	throughput_row "saves it (--save-dir)" "$mib" "$work/save" "$work/floor"
	throughput_row "prints it (-o json)" "$mib" "$work/json" "$work/floor"
	"$abx" run-code "$cid" "del _blobs[$mib]" > /dev/null
done
