//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmd/root"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/sdktest"
	"github.com/abx-dev/abx/internal/engine"
	"github.com/abx-dev/abx/internal/fakenet"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/testrun"
)

// The emulator's sandbox processes start this test binary as their init.
// Under the name abx it is the command line (sdktest.SelfAsABX). The
// tests wait on the official clients and the sandboxes far more than they
// compute: they run side by side, and the abx they start exits at once.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "abx" {
		os.Exit(root.Main())
	}
	testrun.Parallel()
	testrun.QuickExits()
	os.Exit(testrun.RunWithoutRawLog(m))
}

const token = "e2b_5eed0f0e2b1e"

type fixture struct {
	emu  *emulator.Emulator
	url  string
	port int // the engine's own
	svc  *sandboxes.Service
	// served counts the requests the engine's listener took.
	served atomic.Int64
}

// start serves an engine for the alicloud-container provider pointed at a
// fresh emulator, as `abx provider engine serve` does; with would change
// its options first.
func start(t *testing.T, with ...func(*engine.Options)) *fixture {
	t.Helper()
	return startOn(t, emulator.Options{}, with...)
}

// startOn is start on an emulator started with opts.
// startShared is start with sandboxes that share this machine's network
// (no isolation): a server the test starts serves their ports, as a
// server a sandbox started would.
func startShared(t *testing.T, with ...func(*engine.Options)) *fixture {
	t.Helper()
	return startOn(t, emulator.Options{Isolation: emulator.IsolationNone}, with...)
}

func startOn(t *testing.T, opts emulator.Options, with ...func(*engine.Options)) *fixture {
	t.Helper()
	opts.KeepRequests = true
	emu, err := emulator.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emu.Close() })
	env := map[string]string{}
	for _, kv := range emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	f, _ := factorytest.NewFactory(false, env, "")
	if err := f.Sandboxes.Ready(); err != nil {
		t.Fatal(err)
	}
	// The engine needs its own port for its domain: listen, then serve.
	ts := httptest.NewUnstartedServer(nil)
	fx := &fixture{emu: emu, svc: f.Sandboxes.Keeping(engine.EndpointTTL), port: ts.Listener.Addr().(*net.TCPAddr).Port}
	eo := engine.Options{Sandboxes: fx.svc, Transport: f.HTTPClient().Transport,
		Token: token, Domain: "localhost:" + strconv.Itoa(fx.port), Secrets: f.IO.Secrets}
	for _, w := range with {
		w(&eo)
	}
	e := engine.New(eo)
	ts.Config = e.Server()
	next := ts.Config.Handler
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fx.served.Add(1)
		next.ServeHTTP(w, r)
	})
	ts.Start()
	t.Cleanup(ts.Close)
	fx.url = ts.URL
	return fx
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
	for route, says := range map[string]string{
		"GET /templates":               "templates.read",
		"GET /templates/base":          "templates.read",
		"PUT /templates/base":          "templates.build",
		"GET /v2/templates/x":          "templates.build",
		"GET /sandboxes/x/logs":        "sandbox.logs",
		"GET /volumes":                 "storage.mount",
		"POST /sandboxes/x/refreshes":  "sandbox.refresh",
		"POST /snapshots":              "snapshots",
		"PUT /sandboxes/x/network":     "sandbox.network",
		"POST /sandboxes/x/teleport":   `does not serve POST \"/sandboxes/x/teleport\"`,
		"PATCH /sandboxes/x":           `does not serve PATCH \"/sandboxes/x\"`,
		"GET /no/such/route/of/e2b/at": "does not serve GET",
	} {
		method, path, _ := strings.Cut(route, " ")
		status, body := fx.do(t, method, path, token, "{}")
		var e struct {
			Code    int
			Message string
			AbxCode string
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || status != 501 || e.Code != 501 || e.AbxCode != "E8004" ||
			!strings.Contains(body, says) {
			t.Errorf("%s: %d %s, want 501 E8004 naming %s", route, status, body, says)
		}
	}
}

// node runs an SDK script given only the engine's environment (and a free
// port for a server in the sandbox, SERVE_PORT), and env, under a hang
// guard.
func (fx *fixture) node(t *testing.T, script string, env ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = filepath.Dir(script)
	domain := "localhost:" + fx.url[strings.LastIndex(fx.url, ":")+1:]
	cmd.Env = append(os.Environ(), "E2B_API_URL="+fx.url, "E2B_SANDBOX_URL="+fx.url, "E2B_API_KEY="+token, "E2B_DOMAIN="+domain,
		"SERVE_PORT="+strconv.Itoa(fakenet.FreePort(t)))
	cmd.Env = append(cmd.Env, env...)
	return cmd.CombinedOutput()
}

// The official SDKs, given only the engine's environment, run the whole
// story against the emulator; the provider's API key reaches only the
// control plane.
func TestOfficialSDKsThroughTheEngine(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "engine.test.mjs")
	fx := start(t)
	out, err := fx.node(t, run)
	sdktest.Steps(t, out, err, 22)
	for _, r := range fx.emu.Manager.Requests() {
		if r.Header.Get("X-API-Key") != fx.emu.APIKey {
			t.Errorf("a control-plane request without the provider's key: %s %s", r.Method, r.Path)
		}
	}
}

// A cluster whose traffic tokens live a second: the SDKs, which know
// nothing of them, keep a guarded sandbox's commands, files and code
// working past several expiries, since the engine renews the sandbox's
// token behind its forwards.
func TestOfficialSDKsOutliveTrafficTokens(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "guarded.test.mjs")
	fx := startOn(t, emulator.Options{TrafficTokenValidity: time.Second})
	out, err := fx.node(t, run)
	sdktest.Steps(t, out, err, 6)
	refreshes := 0
	for _, r := range fx.emu.Manager.Requests() {
		if strings.HasSuffix(r.Path, "/traffic-access-token") {
			refreshes++
		}
	}
	if refreshes < 2 {
		t.Errorf("the engine refreshed the token %d times over several expiries", refreshes)
	}
}

// The official SDK's snapshots through the engine, on the emulator:
// createSnapshot, a sandbox made from a snapshot, listSnapshots,
// deleteSnapshot and fork work as on E2B's API, through the provider's
// routes.
func TestTheSDKsSnapshotsThroughTheEngine(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "snapshots.test.mjs")
	fx := start(t)
	out, err := fx.node(t, run)
	sdktest.Steps(t, out, err, 4)
	snapshots := 0
	for _, r := range fx.emu.Manager.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/snapshots") {
			snapshots++
		}
		if strings.HasSuffix(r.Path, "/fork") {
			t.Errorf("the provider was sent %s %s: it has no fork route", r.Method, r.Path)
		}
	}
	if snapshots != 3 {
		t.Errorf("the provider took %d snapshots, want 3 (one, another, the fork's)", snapshots)
	}
}

// Other people's E2B clients' network settings through the engine: a
// port of an unguarded sandbox answers a plain fetch; a private or guarded
// one's needs the token; egress rules at create reach the provider and
// come back in getInfo; updateNetwork is refused by name.
func TestTheSDKsNetworkThroughTheEngine(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "network.test.mjs")
	fx := start(t)
	steps, env := 6, []string(nil)
	if fx.emu.Isolated {
		// Every sandbox has a network of its own.
		steps, env = 7, []string{"OWN_NETWORKS=1"}
	}
	out, err := fx.node(t, run, env...)
	sdktest.Steps(t, out, err, steps)
	locked := false
	for _, s := range fx.emu.Manager.Sandboxes() {
		if s.Metadata["egress"] == "locked" {
			locked = s.Network != nil && slices.Equal(s.Network.DenyOut, []string{"0.0.0.0/0"})
		}
	}
	for _, r := range fx.emu.Manager.Requests() {
		if strings.HasSuffix(r.Path, "/network") || strings.HasSuffix(r.Path, "/fork") {
			t.Errorf("the provider was sent %s %s", r.Method, r.Path)
		}
	}
	if !locked {
		t.Errorf("the provider was never asked for the denyOut rule")
	}
}

// On the data plane the engine's token is checked and swapped for the
// sandbox's own; the provider's API key never goes there, and a request
// with a wrong token reaches nothing.
func TestTheDataPlaneGetsTheSandboxsTokenOnly(t *testing.T) {
	t.Parallel()
	fx := start(t)
	status, body := fx.do(t, "POST", "/v2/sandboxes", token, `{"templateID":"base"}`)
	var created struct {
		SandboxID       string
		EnvdAccessToken string
	}
	if err := json.Unmarshal([]byte(body), &created); status != 201 || err != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	if created.EnvdAccessToken != token {
		t.Errorf("the client was handed %q, not the engine's token", created.EnvdAccessToken)
	}
	health := func(accessToken string) int {
		req, _ := http.NewRequest("GET", fx.url+"/health", nil)
		req.Header.Set("E2b-Sandbox-Id", created.SandboxID)
		req.Header.Set("E2b-Sandbox-Port", "49983")
		req.Header.Set("X-Access-Token", accessToken)
		req.Header.Set("X-API-Key", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	envd := fx.emu.Gateway.Envd(created.SandboxID)
	if got := health("wrong"); got != 401 || len(envd.Requests()) != 0 {
		t.Fatalf("a wrong token: %d, and envd heard %d requests", got, len(envd.Requests()))
	}
	if got := health(token); got != 204 {
		t.Fatalf("health: %d", got)
	}
	var sandboxToken string
	for _, s := range fx.emu.Manager.Sandboxes() {
		if s.ID == created.SandboxID {
			sandboxToken = s.EnvdAccessToken
		}
	}
	// What the client was told holds neither the provider's key nor the
	// sandbox's own token.
	if strings.Contains(body, fx.emu.APIKey) || strings.Contains(body, sandboxToken) {
		t.Errorf("the create answer leaks a secret: %s", body)
	}
	reqs := envd.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("X-Access-Token") != sandboxToken || sandboxToken == "" {
		t.Fatalf("envd heard %+v, want the sandbox's own token", reqs)
	}
	for _, h := range []string{"X-API-Key", "Authorization"} {
		if v := reqs[0].Header.Get(h); v != "" {
			t.Errorf("envd heard %s: %q", h, v)
		}
	}
}

// --debug's log says where each request went, and never a header: the
// engine's token stays out of it.
func TestTheLogNamesNoSecret(t *testing.T) {
	t.Parallel()
	fx := start(t)
	var log strings.Builder
	e := engine.New(engine.Options{Sandboxes: fx.svc, Transport: http.DefaultTransport, Token: token,
		Domain: "localhost:1", Log: &log})
	for _, key := range []string{token, "wrong"} {
		req := httptest.NewRequest("GET", "/v2/sandboxes", nil)
		req.Host = "localhost:1"
		req.Header.Set("X-API-Key", key)
		e.ServeHTTP(httptest.NewRecorder(), req)
	}
	got := log.String()
	if !strings.Contains(got, "engine: GET /v2/sandboxes -> control plane: 200") ||
		!strings.Contains(got, "engine: GET /v2/sandboxes -> control plane: 401") || strings.Contains(got, token) {
		t.Errorf("log:\n%s", got)
	}
}

// The E2B CLI, given only the engine's environment, lists, runs a
// command in, shows the metrics of and kills a sandbox.
func TestTheE2BCLIThroughTheEngine(t *testing.T) {
	t.Parallel()
	script := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "engine.test.mjs")
	cli := filepath.Join(filepath.Dir(script), "node_modules", ".bin", "e2b")
	fx := start(t)
	status, body := fx.do(t, "POST", "/sandboxes", token, `{"templateID":"base","metadata":{"via":"cli"}}`)
	var created struct{ SandboxID string }
	if err := json.Unmarshal([]byte(body), &created); status != 201 || err != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, cli, args...)
		domain := "localhost:" + fx.url[strings.LastIndex(fx.url, ":")+1:]
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "E2B_API_URL="+fx.url, "E2B_SANDBOX_URL="+fx.url,
			"E2B_API_KEY="+token, "E2B_DOMAIN="+domain, "E2B_ACCESS_TOKEN=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("e2b %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run("sandbox", "list", "-f", "json"); !strings.Contains(out, `"sandboxId": "`+created.SandboxID+`"`) {
		t.Errorf("list:\n%s", out)
	}
	if out := run("sandbox", "exec", created.SandboxID, "echo", "hello-from-the-cli"); !strings.Contains(out, "hello-from-the-cli") {
		t.Errorf("exec:\n%s", out)
	}
	// The CLI prints the sample as a JSON line with --format json, and as
	// a line with CPU, memory and disk otherwise.
	var sample struct {
		Timestamp string
		CPUCount  int
		MemTotal  int64
		DiskTotal int64
	}
	out := run("sandbox", "metrics", created.SandboxID, "--format", "json")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), &sample); err != nil {
				t.Errorf("metrics: %v in %s", err, line)
			}
		}
	}
	if sample.Timestamp == "" || sample.CPUCount < 1 || sample.MemTotal <= 0 || sample.DiskTotal <= 0 {
		t.Errorf("metrics --format json: %+v from:\n%s", sample, out)
	}
	if out := run("sandbox", "metrics", created.SandboxID); !strings.Contains(out, "CPU:") || !strings.Contains(out, "Memory:") ||
		!strings.Contains(out, "Disk:") {
		t.Errorf("metrics:\n%s", out)
	}
	run("sandbox", "kill", created.SandboxID)
	if out := run("sandbox", "list", "-f", "json"); strings.Contains(out, created.SandboxID) {
		t.Errorf("listed after kill:\n%s", out)
	}
}

// sandbox-manager refuses a template it does not have with 400, which abx
// reads as not found: the engine answers 404, and its message tells no
// other status than its own.
func TestAnErrorTellsOneStatus(t *testing.T) {
	t.Parallel()
	fx := start(t)
	status, body := fx.do(t, "POST", "/sandboxes", token, `{"templateID":"no-such-template"}`)
	var e struct {
		Code    int
		Message string
		AbxCode string
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || status != 404 || e.Code != 404 {
		t.Fatalf("%d %s, want 404", status, body)
	}
	if strings.Contains(e.Message, "HTTP 400") || !strings.Contains(e.Message, "not found") {
		t.Errorf("message %q: the service's words without its 400", e.Message)
	}
}
