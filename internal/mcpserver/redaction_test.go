//go:build unix

package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/secrets"
)

// echoingKey is the key of the fake below, which echoes it.
const echoingKey = "sk-echoed-by-the-server-0123"

// echoing is an upstream that echoes the key it was sent: in the metadata
// of the sandboxes it lists, and in the message of every other answer. It
// returns its URL.
func echoing(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-API-Key")
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/v2/sandboxes") {
			_ = json.NewEncoder(w).Encode([]map[string]any{{
				"sandboxID": "default--base-x7k2p", "templateID": "base", "state": "running",
				"startedAt": "2026-01-02T15:00:05Z", "endAt": "2026-01-02T15:10:05Z",
				"metadata": map[string]string{"note": "made with " + key, key: "as a key too"},
			}})
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": 400, "message": "refused key " + key})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Every result and error a tool answers, structured content included,
// has the secrets abx knows redacted, as abx's printed output has.
func TestToolResultsAreRedacted(t *testing.T) {
	t.Parallel()
	cs := serve(t, over(t, echoing(t), echoingKey))
	res := call(t, cs, "sandbox_list", nil, nil)
	if res.IsError {
		t.Fatalf("list: %s", texts(res))
	}
	got := everything(t, res)
	if strings.Contains(got, echoingKey) || !strings.Contains(got, `"note":"made with REDACTED"`) || !strings.Contains(got, `"REDACTED":"as a key too"`) {
		t.Errorf("sandbox_list answered %s", got)
	}
	res = call(t, cs, "sandbox_info", map[string]any{"sandbox_id": "default--base-x7k2p"}, nil)
	if got := everything(t, res); !res.IsError || strings.Contains(got, echoingKey) || !strings.Contains(got, "refused key REDACTED") {
		t.Errorf("sandbox_info answered %s", got)
	}

	// What a command prints is a result too.
	opts, _ := onEmulator(t)
	emu := serve(t, opts)
	id := create(t, emu, "base")
	res = call(t, emu, "exec", map[string]any{"sandbox_id": id, "command": "echo " + emutest.Key + "; echo " + emutest.Key + " >&2"}, nil)
	if got := everything(t, res); res.IsError || strings.Contains(got, emutest.Key) || !strings.Contains(got, `"stdout":"REDACTED\n"`) {
		t.Errorf("exec answered %s", got)
	}
}

func TestTheKeyNeverAppearsInAToolError(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t)
	cs := serve(t, over(t, env["ABX_ALICLOUD_CONTAINER_BASE_URL"], "sk-wrong-key-0123456789"))
	res := call(t, cs, "sandbox_list", nil, nil)
	mustFail(t, res, "E4001")
	if strings.Contains(texts(res), "sk-wrong-key-0123456789") {
		t.Errorf("the key is in %q", texts(res))
	}
}

// A sandbox's envd access token, once the operations have read it, never
// appears in what a tool answers, whatever brings it back: a command's
// output, a file's name and content, metadata, a process's command line,
// an error's words (the server's, envd's or the SDK's), a protocol error.
func TestASandboxsTokenNeverAppearsInAToolsAnswer(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	cs := serve(t, opts)
	id := create(t, cs, "base")
	if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "true"}, nil); res.IsError {
		t.Fatalf("exec: %s", texts(res))
	}
	eps, err := opts.Sandboxes.Endpoint(t.Context(), id, provider.EnvdPort)
	if err != nil {
		t.Fatal(err)
	}
	token := eps[0].Header.Get("X-Access-Token")
	if len(token) < secrets.MinLen {
		t.Fatalf("the sandbox's token %q", token)
	}
	// A process whose command line holds the token, for process_list.
	if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "sleep 300 # " + token, "background": true}, nil); res.IsError {
		t.Fatalf("exec in the background: %s", texts(res))
	}
	for _, c := range []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		{"exec", map[string]any{"sandbox_id": id, "command": "echo " + token + "; echo " + token + " >&2"}, false},
		{"exec", map[string]any{"sandbox_id": id, "command": "echo " + token + "; sleep 30", "timeout_seconds": 1}, true},
		{"process_list", map[string]any{"sandbox_id": id}, false},
		{"files_write", map[string]any{"sandbox_id": id, "path": token + ".txt", "content": token}, false},
		{"files_read", map[string]any{"sandbox_id": id, "path": token + ".txt"}, false},
		{"files_list", map[string]any{"sandbox_id": id, "path": "."}, false},
		{"files_read", map[string]any{"sandbox_id": id, "path": "/nope/" + token}, true},
		{"sandbox_create", map[string]any{"template": "base", "metadata": map[string]string{"note": token}}, false},
		{"sandbox_list", map[string]any{"metadata": map[string]string{"note": token}}, false},
		{"sandbox_info", map[string]any{"sandbox_id": token}, true},
		{"exec", map[string]any{"sandbox_id": id, "command": "true", token: "an argument no tool takes"}, true},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		got := everything(t, res)
		if res.IsError != c.isError || strings.Contains(got, token) || !strings.Contains(got, secrets.Redacted) {
			t.Errorf("%s %v answered (error %v) %s", c.tool, c.args, res.IsError, got)
		}
	}
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: token})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), secrets.Redacted) {
		t.Errorf("a tool named by the token: %v", err)
	}
}
