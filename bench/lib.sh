# Sourced by the bench scripts: the helpers they share. The caller sets
# $work (a scratch directory).

# stop PID...: ends each process started in the background (SIGTERM) and
# waits for it; an empty PID, a process not started yet, is skipped.
stop() {
	local p
	for p in "$@"; do
		[[ -n $p ]] || continue
		kill "$p" 2> /dev/null || true
		wait "$p" 2> /dev/null || true
	done
}

# start_body LINE [FLAG...]: a Connect Start request in the binary codec,
# enveloped, for /bin/bash FLAG... -c LINE: what abx sends, less its
# process-group wrapper (-l: what the official SDKs send).
start_body() {
	python3 - "$@" <<'PY'
import struct, sys
def field(n, b):  # a length-delimited protobuf field
    out, size = bytes([n << 3 | 2]), len(b)
    while size >= 0x80:
        out += bytes([size & 0x7f | 0x80]); size >>= 7
    return out + bytes([size]) + b
config = field(1, b"/bin/bash")
for flag in sys.argv[2:] + ["-c", sys.argv[1]]:
    config += field(2, flag.encode())
sys.stdout.buffer.write(b"\x00" + struct.pack(">I", len(field(1, config))) + field(1, config))
PY
}

# timed OUT CMD...: appends "seconds peak-KiB" of one run of CMD to OUT.
timed() {
	local out=$1; shift
	/usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; return 1; }
	cat "$work/t" >> "$out"
}

# throughput_row LABEL MIB ABX FLOOR: one Markdown row from two files of
# timings: medians with min and max, the floor's time over abx's, abx's
# largest peak RSS, and whether ≥ 0.8× and ≤ 50 MiB hold.
throughput_row() {
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
