//go:build unix

package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/emutest"
)

// echoingKey is the key of the fake below, which echoes it.
const echoingKey = "sk-echoed-by-the-server-0123"

// echoing is an upstream that echoes the key it was sent: in the metadata
// of the sandboxes it lists, and in the message of every other answer.
func echoing(t *testing.T) map[string]string {
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
	return map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": srv.URL,
		"ABX_ALICLOUD_CONTAINER_API_KEY":  echoingKey,
	}
}

// everything is a result as the host receives it: every content and the
// structured content, encoded.
func everything(t *testing.T, res any) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every result and error a tool answers, structured content included,
// has the secrets abx knows redacted, as abx's printed output has.
func TestToolResultsAreRedacted(t *testing.T) {
	t.Parallel()
	cs := connect(t, echoing(t), 0)
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
	emu := connect(t, emulator(t), 0)
	id := create(t, emu, "base")
	res = call(t, emu, "exec", map[string]any{"sandbox_id": id, "command": "echo " + emutest.Key + "; echo " + emutest.Key + " >&2"}, nil)
	if got := everything(t, res); res.IsError || strings.Contains(got, emutest.Key) || !strings.Contains(got, `"stdout":"REDACTED\n"`) {
		t.Errorf("exec answered %s", got)
	}
}
