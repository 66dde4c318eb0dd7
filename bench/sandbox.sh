# Sourced by the bench scripts: builds abx into $work, starts the local
# emulator (its pid in $emu) and creates a sandbox there. Sets abx, id,
# token (the sandbox's envd access token) and envd (the URL of its envd
# through the emulator's gateway). The caller makes $work and stops $emu.
go build -o "$work/abx" ./cmd/abx
abx="$work/abx"
"$abx" emulator start --state-dir "$work/state" > "$work/emu.env" 2>/dev/null &
emu=$!
for _ in $(seq 100); do [ -s "$work/emu.env" ] && break; sleep 0.1; done
# shellcheck disable=SC1091
source "$work/emu.env"
# A lifetime longer than any run: the server's default (5 minutes) ended
# the sandbox in the middle of a long one (REPS=15 at 1 GiB), and every
# later request was answered 502.
id=$("$abx" create --template base --timeout 2h -q)
base=${ABX_ALICLOUD_CONTAINER_BASE_URL%/kruise/api}
token=$(curl -fsS -H "X-API-Key: $ABX_ALICLOUD_CONTAINER_API_KEY" "$base/kruise/api/sandboxes/$id" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["envdAccessToken"])')
envd="$base/kruise/$id/49983"
