#!/usr/bin/env bash
# Start-up cost of abx's cheap commands, against a Go hello-world built by
# the same toolchain with the same flags as a release (CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w"), in the same run; and against the floor of
# abx's chosen libraries: a hello-world that links them (blank imports,
# the versions go.mod selects) and does nothing else. Go runs every linked
# package's initialisation whatever the command, so no binary that carries
# those libraries starts faster than that floor.
#
#   N=200 bash bench/startup.sh
#
# Each command runs N times, in turn with its baseline (A B A B ...), so
# that a machine whose speed drifts during the run slows both alike. A run's
# wall time is taken by bash ($EPOCHREALTIME around the child), so both
# sides carry the same fork and exec. Peak RSS comes from GNU time
# (/usr/bin/time) over a few further runs, left out of the timing. Prints
# Markdown tables; docs/performance.md records a run. The script fails
# only when something cannot be built or run, never on the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
RSS_RUNS=${RSS_RUNS:-10}
work=$(mktemp -d)
# The library probes are built inside the module, so that they link the
# versions abx links; a directory whose name starts with a dot is outside
# ./... and is removed with the rest.
probes=$(mktemp -d "$PWD/bench/.startup.XXXXXX")
trap 'rm -rf "$work" "$probes"' EXIT

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

# probe NAME IMPORT...: a hello-world that links IMPORTs and uses none.
probe() {
	local name=$1; shift
	mkdir "$probes/$name"
	{
		printf 'package main\n\nimport (\n\t"fmt"\n\n'
		printf '\t_ "%s"\n' "$@"
		printf ')\n\nfunc main() { fmt.Println("hello, world") }\n'
	} > "$probes/$name/main.go"
	CGO_ENABLED=0 go build "${flags[@]}" -o "$work/$name" "./bench/$(basename "$probes")/$name"
}
# The chosen libraries (docs/architecture.md), and the generated envd services
# that connect carries for abx: any envd client links their descriptors.
chosen=(github.com/spf13/cobra github.com/spf13/viper charm.land/lipgloss/v2 github.com/olekukonko/tablewriter
	connectrpc.com/connect github.com/itchyny/gojq github.com/abx-dev/abx/internal/envd/gen/process github.com/abx-dev/abx/internal/envd/gen/filesystem
	github.com/modelcontextprotocol/go-sdk/mcp github.com/zalando/go-keyring go.yaml.in/yaml/v3)
probe cobra github.com/spf13/cobra
probe viper github.com/spf13/viper
probe lipgloss charm.land/lipgloss/v2
probe tablewriter github.com/olekukonko/tablewriter
probe connect connectrpc.com/connect github.com/abx-dev/abx/internal/envd/gen/process github.com/abx-dev/abx/internal/envd/gen/filesystem
# gojq's release, as go.mod selects it: its builtin tables are built by
# init functions at every start, a cost of the floor, not of abx.
probe gojq github.com/itchyny/gojq
# The MCP server's SDK (its schemas and gob's tables are built at start),
# the OS keyring's client and the config file's YAML.
probe mcp github.com/modelcontextprotocol/go-sdk/mcp
probe keyring github.com/zalando/go-keyring go.yaml.in/yaml/v3
probe floor "${chosen[@]}"
floor=("$work/floor")

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

# pair NAME BASE CMD...: CMD and its baseline (hello or floor, the name
# of an array), N times each, in turn; the order alternates, so that
# neither always runs first. Prints the medians' ratio as a row's cells.
pair() {
	local name=$1 basename=$2; shift 2
	local -n base=$basename
	: > "$work/a"; : > "$work/b"
	micros "$@" > /dev/null # a first run each, untimed, warms the page cache
	micros "${base[@]}" > /dev/null
	for i in $(seq "$N"); do
		if ((i % 2)); then
			micros "$@" >> "$work/a"
			micros "${base[@]}" >> "$work/b"
		else
			micros "${base[@]}" >> "$work/b"
			micros "$@" >> "$work/a"
		fi
	done
	read -r am amin amax < <(stats "$work/a")
	read -r bm bmin bmax < <(stats "$work/b")
	ratio=$(awk -v a="$am" -v b="$bm" 'BEGIN { printf "%.2f", a / b }')
	row="| $name | $am ($amin–$amax) | $(peak "$@") | $basename: $bm ($bmin–$bmax) | ${ratio}× |"
}

built=$(go version "$work/abx" "$work/hello/hello" "$work/floor" | cut -d' ' -f2 | sort -u)
if [[ $built != "$toolchain" ]]; then
	echo "abx and its baselines were built by different Go toolchains: $built" >&2
	exit 1
fi
echo "abx, hello-world and the library probes built by $toolchain (CGO_ENABLED=0 ${flags[*]}); N=$N runs each, in turn; $(nproc) cores"
echo
echo "What a binary that links only these, and runs nothing of them, costs at start:"
echo
echo "| links | median ms (min–max) | peak RSS | baseline median ms (min–max) | ratio of medians |"
echo "| --- | --- | --- | --- | --- |"
echo "| nothing (hello-world) | – | $(peak "${hello[@]}") | – | 1× |"
for p in cobra viper lipgloss tablewriter connect gojq mcp keyring; do
	label=$p
	[[ $p == connect ]] && label="connect + envd's generated services"
	[[ $p == mcp ]] && label="the MCP SDK"
	[[ $p == keyring ]] && label="go-keyring + yaml"
	pair "$label" hello "$work/$p"
	echo "$row"
done
pair "the chosen libraries together (the floor)" hello "${floor[@]}"
echo "$row"
echo
echo "abx's cheap commands, against both:"
echo
echo "| command | median ms (min–max) | peak RSS | baseline median ms (min–max) | ratio of medians | ≤ 1.25× the floor |"
echo "| --- | --- | --- | --- | --- | --- |"
for args in "--version" "capabilities -o json" "url sbx-bench 8080"; do
	read -ra argv <<< "$args"
	label="abx $args"
	[[ $args == url* ]] && label="abx url ID PORT"
	pair "$label" hello "$work/abx" "${argv[@]}"
	echo "$row – |"
	pair "$label" floor "$work/abx" "${argv[@]}"
	echo "$row $(awk -v r="$ratio" 'BEGIN { print (r <= 1.25 ? "yes" : "no") }') |"
done
