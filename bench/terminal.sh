#!/usr/bin/env bash
# abx terminal: how fast a key comes back, and how fast bulk output goes
# through a terminal, against abx exec of the same output.
#
#   bash bench/terminal.sh [MiB]        (default 64; REPS=5, KEYS=200)
#
# 1. Keystroke to echo: abx terminal runs `cat` on a pseudo-terminal this
#    script allocates (python3's pty); one key at a time is typed and the
#    time until the terminal shows it back is taken, KEYS times: median
#    and p95. Target: p95 ≤ 50 ms on loopback.
# 2. Bulk: MiB of base64 text printed by the remote command, REPS times in
#    turn, the order alternating: through `abx terminal ID -- CMD` (read
#    from the pty, as a terminal does), and through its true floor: the
#    same command on two PTYs in series with a plain relay between them
#    and no abx (`script -q -c CMD /dev/null` on the pty this script
#    allocates: a terminal's output crosses two, the sandbox's and the
#    local one). Beside them, for reference, `abx exec ID -- CMD` (the
#    same bytes on the same wire without a terminal) and one PTY alone.
#    Target: ≥ 0.8× the two-PTY floor's throughput, peak RSS ≤ 50 MiB.
#
# Needs python3, curl, script (util-linux). Prints Markdown; docs/performance.md records a run.
# Never fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=${1:-64}
REPS=${REPS:-5}
KEYS=${KEYS:-200}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh

python3 - "$abx" "$id" "$MIB" "$REPS" "$KEYS" <<'PY'
import os, pty, resource, select, statistics, subprocess, sys, time

abx, sid, mib, reps, keys = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])

def spawn(args):
    """args on a new 120x40 pseudo-terminal; returns (proc, master fd)."""
    master, slave = pty.openpty()
    import fcntl, struct, termios
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    p = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                         preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    return p, master

def read_until(fd, want, limit=30.0):
    buf, end = b"", time.monotonic() + limit
    while want not in buf:
        r, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not r:
            raise SystemExit(f"bench/terminal.sh: {want!r} did not come; got {buf[-200:]!r}")
        buf += os.read(fd, 65536)
    return buf

def peak_kib(before):
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss

# 1. keystroke to echo, through `cat` with the terminal's echo off: what
#    comes back is cat's output, a full round trip through the sandbox.
p, m = spawn([abx, "terminal", sid, "--", "bash", "-c", "stty -echo -icanon; echo READY; exec cat"])
read_until(m, b"READY")
lat = []
for i in range(keys):
    k = bytes([ord("a") + i % 26])
    t0 = time.monotonic()
    os.write(m, k)
    read_until(m, k)
    lat.append((time.monotonic() - t0) * 1000)
    time.sleep(0.005)
os.write(m, b"\x03")  # ISIG is on: cat ends, and abx with it
p.wait(timeout=30)
os.close(m)
lat.sort()
p95 = lat[int(len(lat) * 0.95) - 1]
print(f"Keystroke to echo, {keys} keys, one at a time, through `cat` in the sandbox:\n")
print("| median | p95 | max | p95 ≤ 50 ms |")
print("| --- | --- | --- | --- |")
print(f"| {statistics.median(lat):.1f} ms | {p95:.1f} ms | {lat[-1]:.1f} ms | {'yes' if p95 <= 50 else 'NO'} |\n")

# 2. bulk output: the terminal against exec, in turn.
line = f"head -c {mib * 1024 * 1024 * 3 // 4} /dev/zero | base64 -w 76"
size = mib * 1024 * 1024
def term_run(how="abx"):
    """The bulk command on this script's pty: through abx terminal
    ("abx"), one PTY alone ("one"), or two in series ("two")."""
    t0 = time.monotonic()
    cmd = ["bash", "-c", "stty raw -echo; " + line]
    if how == "abx":
        cmd = ["/usr/bin/time", "-f", "RSS %M", abx, "terminal", sid, "--"] + cmd
    elif how == "two":
        cmd = ["script", "-q", "-e", "-c", "stty raw -echo; " + line, "/dev/null"]
    p, m = spawn(cmd)
    n = 0
    tail = b""
    while True:
        try:
            b = os.read(m, 1 << 16)
        except OSError:
            break
        if not b:
            break
        n += len(b)
        tail = (tail + b)[-200:]
    p.wait(timeout=600)
    os.close(m)
    dt = time.monotonic() - t0
    rss = int(tail.split(b"RSS ")[-1].split()[0]) if b"RSS " in tail else 0
    return dt, rss, n
def exec_run():
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "RSS %M", abx, "exec", sid, "--", line],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    dt = time.monotonic() - t0
    rss = int(r.stderr.split(b"RSS ")[-1].split()[0])
    return dt, rss
tt, er, pt, wt, trss, errs = [], [], [], [], [], []
for i in range(reps):
    runs = ["abx", "two", "exec", "one"] if i % 2 == 0 else ["one", "exec", "two", "abx"]
    for kind in runs:
        if kind == "exec":
            dt, rss = exec_run()
            er.append(dt); errs.append(rss)
            continue
        dt, rss, n = term_run(kind)
        if n < size:
            raise SystemExit(f"bench/terminal.sh: the terminal showed {n} bytes, want at least {size}")
        {"abx": tt, "one": pt, "two": wt}[kind].append(dt)
        if kind == "abx":
            trss.append(rss)
mt, me, mp, mw = statistics.median(tt), statistics.median(er), statistics.median(pt), statistics.median(wt)
ratio = mw / mt
def row(label, v, m, extra):
    return f"| {label} | {m:.2f} s ({min(v):.2f}–{max(v):.2f}) | {size / m / 1e6:.0f} | {extra}"
print(f"Bulk output, {mib} MiB of base64 text, {reps} runs each, paired, the order alternating:\n")
print("| through | median (min–max) | MB/s | peak RSS | × the two-PTY floor's throughput | ≥ 0.8× and ≤ 50 MiB |")
print("| --- | --- | --- | --- | --- | --- |")
print(row("two PTYs in series, a plain relay, no abx (the floor: `script -q -c CMD`)", wt, mw, "– | 1.00× | – |"))
verdict = "yes" if ratio >= 0.8 and max(trss) <= 50 * 1024 else "NO"
print(row("abx terminal", tt, mt, f"{max(trss) / 1024:.1f} MiB | {ratio:.2f}× | {verdict} |"))
print(row("abx exec, no terminal (for reference)", er, me, f"{max(errs) / 1024:.1f} MiB | {mw / me:.2f}× | – |"))
print(row("one PTY alone (for reference)", pt, mp, f"– | {mw / mp:.2f}× | – |"))
PY
