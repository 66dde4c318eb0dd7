#!/usr/bin/env bash
# Start-up cost of abx's cheap commands, against a Go hello-world built by
# the same toolchain with the same flags as a release (CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w"), in the same run.
#
#   N=200 bash bench/startup.sh
#
# Each command runs N times, in turn with the hello-world (A B A B ...), so
# that a machine whose speed drifts during the run slows both alike. A run's
# wall time is taken by bash ($EPOCHREALTIME around the child), so both
# sides carry the same fork and exec. Peak RSS comes from GNU time
# (/usr/bin/time) over a few further runs, left out of the timing. Prints
# a Markdown table; docs/performance.md records a run. The script fails
# only when something cannot be built or run, never on the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
RSS_RUNS=${RSS_RUNS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

flags=(-trimpath -ldflags "-s -w")
# The toolchain go.mod selects, named, so that the hello-world outside
# this module is built by the same one.
toolchain=$(go env GOVERSION)
CGO_ENABLED=0 go build "${flags[@]}" -o "$work/abx" ./cmd/abx
mkdir "$work/hello"
cat > "$work/hello/main.go" <<'EOF'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
EOF
printf 'module hello\n\ngo %s\n' "${toolchain#go}" > "$work/hello/go.mod"
(cd "$work/hello" && GOTOOLCHAIN=$toolchain GOWORK=off GOFLAGS= CGO_ENABLED=0 go build "${flags[@]}" -o "$work/hello/hello" .)

# Cheap commands need a provider configured, not reachable: url is
# computed from the configuration and capabilities from the provider's
# descriptor, so neither sends a request.
export ABX_PROVIDER=alicloud-container
export ABX_ALICLOUD_CONTAINER_DOMAIN=agents.example.com
export ABX_ALICLOUD_CONTAINER_API_KEY=bench-not-a-key
unset ABX_ALICLOUD_CONTAINER_BASE_URL ABX_ALICLOUD_CONTAINER_API_KEY_FILE

hello=("$work/hello/hello")

# micros CMD...: runs CMD once, its output discarded, and prints its wall
# time in microseconds; a failing CMD fails the script.
micros() {
	local t0 t1
	t0=$EPOCHREALTIME
	"$@" > /dev/null 2> "$work/err" || { echo "failed: $*" >&2; cat "$work/err" >&2; return 1; }
	t1=$EPOCHREALTIME
	echo $((${t1//[.,]/} - ${t0//[.,]/})) # the decimal point follows the locale
}

# stats FILE: median, min and max of the microsecond figures in FILE, in ms.
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f %.2f %.2f\n", m / 1000, v[1] / 1000, v[NR] / 1000 }'
}

# peak CMD...: the largest peak RSS, in MiB, over RSS_RUNS runs of CMD.
peak() {
	if [[ ! -x /usr/bin/time ]]; then
		echo "n/a"
		return
	fi
	local kib max=0
	for _ in $(seq "$RSS_RUNS"); do
		/usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2>&1
		read -r kib < "$work/rss"
		((kib > max)) && max=$kib
	done
	awk -v k="$max" 'BEGIN { printf "%.1f MiB\n", k / 1024 }'
}

# pair NAME CMD...: CMD and the hello-world, N times each, in turn; the
# order alternates, so that neither always runs first.
pair() {
	local name=$1; shift
	: > "$work/a"; : > "$work/b"
	micros "$@" > /dev/null # a first run each, untimed, warms the page cache
	micros "${hello[@]}" > /dev/null
	for i in $(seq "$N"); do
		if ((i % 2)); then
			micros "$@" >> "$work/a"
			micros "${hello[@]}" >> "$work/b"
		else
			micros "${hello[@]}" >> "$work/b"
			micros "$@" >> "$work/a"
		fi
	done
	read -r am amin amax < <(stats "$work/a")
	read -r bm bmin bmax < <(stats "$work/b")
	local ratio ok
	ratio=$(awk -v a="$am" -v b="$bm" 'BEGIN { printf "%.2f", a / b }')
	ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 2 ? "yes" : "no") }')
	echo "| $name | $am | $amin | $amax | $(peak "$@") | hello-world: $bm ($bmin–$bmax) | ${ratio}× | $ok |"
}

built=$(go version "$work/abx" "$work/hello/hello" | cut -d' ' -f2 | sort -u)
if [[ $built != "$toolchain" ]]; then
	echo "abx and the hello-world were built by different Go toolchains: $built" >&2
	exit 1
fi
echo "abx and hello-world built by $toolchain (CGO_ENABLED=0 ${flags[*]}); N=$N runs each, in turn; $(nproc) cores"
echo
echo "| command | median ms | min ms | max ms | peak RSS | baseline median ms (min–max) | ratio of medians | ≤ 2× |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
echo "| hello-world | – | – | – | $(peak "${hello[@]}") | – | 1× | – |"
pair "abx --version" "$work/abx" --version
pair "abx capabilities -o json" "$work/abx" capabilities -o json
pair "abx url ID PORT" "$work/abx" url sbx-bench 8080
