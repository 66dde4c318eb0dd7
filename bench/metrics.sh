#!/usr/bin/env bash
# abx metrics against abx info on the local emulator: start to print of one
# sample (two requests: the sandbox's read, then envd's /metrics) against
# one sandbox's read (one request), each a fresh process, paired run by
# run with the order alternating; and curl making the same two requests,
# the floor of the wire. Target: metrics ≤ 1.2× info's wall time.
#
#   bash bench/metrics.sh        (REPS=30)
#
# Needs curl and python3. Prints Markdown; docs/performance.md records a
# run. Never fails on a time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-30}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh

python3 - "$abx" "$id" "$REPS" "$base" "$ABX_ALICLOUD_CONTAINER_API_KEY" "$envd" "$token" <<'PY'
import statistics, subprocess, sys, time
abx, sid, reps, base, key, envd, token = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
cmds = {
    "info": [abx, "info", sid, "-o", "json"],
    "metrics": [abx, "metrics", sid, "-o", "json"],
    "curl": ["sh", "-c", 'curl -fsS -o /dev/null -H "X-API-Key: $1" "$2/kruise/api/sandboxes/$3" && '
             'curl -fsS -o /dev/null -H "X-Access-Token: $4" "$5/metrics"', "sh", key, base, sid, token, envd],
}
times = {k: [] for k in cmds}
for name in cmds:  # warm the caches once
    subprocess.run(cmds[name], stdout=subprocess.DEVNULL, check=True)
for i in range(reps):
    order = list(cmds) if i % 2 == 0 else list(reversed(cmds))
    for name in order:
        t0 = time.perf_counter()
        subprocess.run(cmds[name], stdout=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - t0)
med = {k: statistics.median(v) for k, v in times.items()}
ratio = med["metrics"] / med["info"]
print(f"{reps} runs each, in turn (fresh processes):\n")
print("| command | requests | median (min–max) | / abx info |")
print("| --- | --- | --- | --- |")
for name, label, reqs in [("info", "abx info", 1), ("metrics", "abx metrics", 2), ("curl", "curl, the same two requests", 2)]:
    v = times[name]
    print(f"| {label} | {reqs} | {med[name] * 1000:.1f} ms ({min(v) * 1000:.1f}–{max(v) * 1000:.1f}) | {med[name] / med['info']:.2f}× |")
print(f"\nabx metrics / abx info: {ratio:.2f}× ({'holds' if ratio <= 1.2 else 'NOT met'}: target ≤ 1.2×)")
PY
