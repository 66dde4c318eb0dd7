#!/usr/bin/env bash
# abx quickstart: the life of one sandbox, as a script would drive it.
# Run it against the local emulator:   go run ./cmd/abx emulator exec -- ./examples/quickstart.sh
# or against a cluster, with ABX_PROVIDER and ABX_ALICLOUD_CONTAINER_* set.
set -euo pipefail

step() { printf '\n== %s\n' "$*"; }

step "create a code-interpreter sandbox, 10 minutes to live"
id=$(abx create --template code-interpreter --timeout 10m --metadata app=quickstart -q)
echo "$id"
trap 'abx kill "$id" --ignore-not-found >/dev/null 2>&1 || true' EXIT

step "list the sandboxes of this app"
abx list --metadata app=quickstart

step "inspect it"
abx info "$id"

step "run a command in it"
abx exec "$id" -- 'echo "hello from $(hostname)"; uname -s'

step "write a file, read it back (the sandbox user's home is /home/user)"
echo "written by the quickstart" | abx files write "$id" /home/user/notes/hello.txt
abx files read "$id" /home/user/notes/hello.txt
abx files ls "$id" /home/user/notes
abx exec "$id" -- 'whoami; cat ~/notes/hello.txt'


step "run code: the interpreter keeps its variables between runs"
abx run-code "$id" 'squares = [n * n for n in range(10)]'
abx run-code "$id" - <<'PY'
total = sum(squares)
print("the sum of the first ten squares is", total)
open("/home/user/notes/total.txt", "w").write(str(total))
total / 10
PY
abx files read "$id" /home/user/notes/total.txt && echo

step "code that raises exits 1, with the traceback on stderr"
if abx run-code "$id" 'squares[99]' 2>/dev/null; then exit 1; else echo "exit $?"; fi

step "give it an hour"
abx timeout "$id" 1h

step "pause it, then see its state"
abx pause "$id"
abx info "$id" -o json | grep '"state"'

step "resume it: its interpreter still knows the squares"
abx resume "$id"
abx run-code "$id" 'squares[-1]'

step "connect: makes sure it runs and extends its deadline"
abx connect "$id" --timeout 30m

step "the URL of its port 8080"
abx url "$id" 8080

step "kill it"
abx kill "$id"
trap - EXIT

step "done: no sandbox of this app is left"
abx list --metadata app=quickstart -o json
