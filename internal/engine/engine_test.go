//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/sdktest"
	"github.com/abx-dev/abx/internal/engine"
)

// The emulator's sandbox processes start this test binary as their init.
func TestMain(m *testing.M) {
	jail.Init()
	os.Exit(m.Run())
}

const token = "abx_eng_test-token"

type fixture struct {
	emu *emulator.Emulator
	url string
}

// start serves an engine for the alicloud-container provider pointed at a
// fresh emulator, as `abx provider engine serve` does.
func start(t *testing.T) *fixture {
	t.Helper()
	emu, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emu.Close() })
	env := map[string]string{}
	for _, kv := range emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	f, _ := cmdtest.NewFactory(false, env, "")
	if err := cmdtest.Select(f); err != nil {
		t.Fatal(err)
	}
	p, err := f.Provider()
	if err != nil {
		t.Fatal(err)
	}
	var e *engine.Engine
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { e.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	e = engine.New(engine.Options{Provider: p, Descriptor: f.Descriptor, Transport: f.HTTPClient().Transport,
		Token: token, Domain: "localhost:" + ts.URL[strings.LastIndex(ts.URL, ":")+1:]})
	return &fixture{emu: emu, url: ts.URL}
}

func (fx *fixture) do(t *testing.T, method, path, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, fx.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A client without the engine's token gets E2B's 401 and the provider
// hears nothing of it.
func TestTheTokenGuardsEverything(t *testing.T) {
	t.Parallel()
	fx := start(t)
	before := len(fx.emu.Manager.Requests())
	for _, key := range []string{"", "wrong", fx.emu.APIKey} {
		status, body := fx.do(t, "POST", "/sandboxes", key, `{"templateID":"base"}`)
		if status != 401 || !strings.Contains(body, `"code":401`) {
			t.Errorf("key %q: %d %s", key, status, body)
		}
	}
	if after := len(fx.emu.Manager.Requests()); after != before {
		t.Errorf("the provider heard %d requests", after-before)
	}
}

// What the provider cannot do is an E2B-shaped error with E8004.
func TestUnsupportedRoutesSaySo(t *testing.T) {
	t.Parallel()
	fx := start(t)
	for _, path := range []string{"/templates", "/v2/templates/x", "/sandboxes/x/logs", "/volumes"} {
		status, body := fx.do(t, "GET", path, token, "")
		var e struct {
			Code    int
			Message string
			AbxCode string
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || status != 501 || e.AbxCode != "E8004" {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
}

// The official SDKs, given only the engine's environment, run the whole
// story against the emulator; the provider's API key reaches only the
// control plane.
func TestOfficialSDKsThroughTheEngine(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "engine.test.mjs")
	fx := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", run)
	cmd.Dir = filepath.Dir(run)
	domain := "localhost:" + fx.url[strings.LastIndex(fx.url, ":")+1:]
	cmd.Env = append(os.Environ(), "E2B_API_URL="+fx.url, "E2B_SANDBOX_URL="+fx.url, "E2B_API_KEY="+token, "E2B_DOMAIN="+domain)
	out, err := cmd.CombinedOutput()
	sdktest.Steps(t, out, err, 15)
	for _, r := range fx.emu.Manager.Requests() {
		if r.Header.Get("X-API-Key") != fx.emu.APIKey {
			t.Errorf("a control-plane request without the provider's key: %s %s", r.Method, r.Path)
		}
	}
}
