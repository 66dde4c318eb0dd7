#!/usr/bin/env bash
# abx mcp serve: what an exec tool call costs against a fresh `abx exec`
# of the same command, and the server's memory under calls at once.
#
#   bash bench/mcp.sh [N]        (default 10 calls at once; REPS=20, ROUNDS=5, RTT_MS=0)
#
# A host (bench/mcpclient, on the official Go SDK, as agent hosts spawn
# the server) starts `abx mcp serve` on stdio once, then:
#
# 1. `echo hi`, REPS times each way, in turn (the order rotates and
#    alternates): an exec tool call, and `abx exec ID -- 'echo hi'` as a
#    fresh process; beside them, to tell where the time goes, sandbox_url
#    (a tool that sends no request: the protocol's round trip),
#    sandbox_info (one GET) and the command alone through abx's envd
#    client in the host's own process. Target: the tool call ≤ 0.5× the
#    process's time, ratio of medians.
# 2. ROUNDS rounds of N exec calls at once, each printing 130 KB (under
#    the 256 KiB cap on each stream), then ROUNDS more each printing 1.3 MB
#    (past it: the most a call holds), while the server's VmRSS is sampled
#    from /proc; then its VmHWM. Target: ≤ 50 MiB with 10 calls at once.
#
# On the emulator, whose sandboxes run each command in a box;
# ABX_EMULATOR_ISOLATION=none runs them without one. RTT_MS puts the
# emulator that many milliseconds away, as a cluster is: every abx and the
# bench's envd client then reach it through a proxy that delays each byte
# half of that each way, and a new connection by a whole round trip.
# Needs curl, python3.
# Prints Markdown; docs/performance.md records a run. Never fails on a
# figure.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10}
REPS=${REPS:-20}
ROUNDS=${ROUNDS:-5}
work=$(mktemp -d)
emu=
trap 'stop "$emu"; rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=bench/sandbox.sh
source bench/sandbox.sh
go build -o "$work/mcpclient" ./bench/mcpclient
version=$(curl -fsS -H "X-API-Key: $ABX_ALICLOUD_CONTAINER_API_KEY" "$base/kruise/api/sandboxes/$id" |
	python3 -c 'import json,sys; print(json.load(sys.stdin).get("envdVersion", ""))')

"$work/mcpclient" -abx "$abx" -sandbox "$id" -envd "$envd" -token "$token" -envd-version "$version" \
	-reps "$REPS" -calls "$N" -rounds "$ROUNDS" -rtt "${RTT_MS:-0}ms"
"$abx" kill "$id" > /dev/null 2>&1
