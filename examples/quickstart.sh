#!/usr/bin/env bash
# abx quickstart: the life of one sandbox, as a script would drive it.
# Run it against the local emulator:   go run ./cmd/abx emulator exec -- ./examples/quickstart.sh
# or against a cluster, with ABX_PROVIDER and ABX_ALICLOUD_CONTAINER_* set.
set -euo pipefail

step() { printf '\n== %s\n' "$*"; }

step "create a sandbox from the base template, 10 minutes to live"
id=$(abx create --template base --timeout 10m --metadata app=quickstart -q)
echo "$id"
trap 'abx kill "$id" --ignore-not-found >/dev/null 2>&1 || true' EXIT

step "list the sandboxes of this app"
abx list --metadata app=quickstart

step "inspect it"
abx info "$id"

step "run a command in it"
abx exec "$id" -- 'echo "hello from $(hostname)"; uname -s'

step "write a file, read it back"
echo "written by the quickstart" | abx files write "$id" notes/hello.txt
abx files read "$id" notes/hello.txt
abx files ls "$id" notes

step "give it an hour"
abx timeout "$id" 1h

step "pause it, then see its state"
abx pause "$id"
abx info "$id" -o json | grep '"state"'

step "connect: a paused sandbox is resumed"
abx connect "$id" -o json | grep -q '"resumed": true' && echo "resumed"

step "the URL of its port 8080"
abx url "$id" 8080

step "kill it"
abx kill "$id"
trap - EXIT

step "done: no sandbox of this app is left"
abx list --metadata app=quickstart -o json
