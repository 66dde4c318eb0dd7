//go:build unix

package emulator

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/manager"
)

type gatewayFixture struct {
	t   *testing.T
	url string
	m   *manager.Server
	g   *Gateway
}

func newGatewayFixture(t *testing.T) *gatewayFixture {
	m := manager.New(manager.Options{APIKey: "k", KeepRequests: true})
	g := NewGateway(m, t.TempDir(), "")
	g.Isolated = jail.Available() == nil
	ts := httptest.NewServer(g)
	t.Cleanup(ts.Close)
	t.Cleanup(g.Close) // first: kills the kernels handlers may wait on
	return &gatewayFixture{t: t, url: ts.URL, m: m, g: g}
}

func (f *gatewayFixture) do(method, path, body string, header map[string]string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", "k")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// create makes a sandbox and returns its id and envd access token.
func (f *gatewayFixture) create(template string) (string, string) {
	f.t.Helper()
	status, body := f.do("POST", "/kruise/api/sandboxes", `{"templateID":"`+template+`"}`, nil)
	var out struct{ SandboxID string }
	if err := json.Unmarshal([]byte(body), &out); status != http.StatusCreated || err != nil {
		f.t.Fatalf("create: %d %s", status, body)
	}
	for _, s := range f.m.Sandboxes() {
		if s.ID == out.SandboxID {
			return s.ID, s.EnvdAccessToken
		}
	}
	f.t.Fatalf("sandbox %s not listed", out.SandboxID)
	return "", ""
}

func TestCodeInterpreterPort(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := newGatewayFixture(t)
	id, token := f.create("code-interpreter")
	if f.g.Jupyter(id) == nil {
		t.Fatal("no code interpreter for a code-interpreter sandbox")
	}
	execute := func(code string) (int, string) {
		return f.do("POST", "/kruise/"+id+"/49999/execute", `{"code":"`+code+`"}`,
			map[string]string{"X-Access-Token": token, "Content-Type": "application/json"})
	}

	status, body := execute("x = 40\\nx + 2")
	if status != http.StatusOK || !strings.Contains(body, `"text": "42"`) || !strings.HasSuffix(body, `{"type": "end_of_execution"}`+"\n") {
		t.Fatalf("execute: %d %s", status, body)
	}
	// The real code interpreter asks for no token; neither does this one.
	if status, _ := f.do("POST", "/kruise/"+id+"/49999/execute", `{"code":"1"}`, nil); status != http.StatusOK {
		t.Fatalf("without the access token: %d", status)
	}
	reqs := f.g.Jupyter(id).Requests()
	if len(reqs) != 2 || reqs[0].Path != "/execute" {
		t.Fatalf("the code interpreter saw %+v", reqs)
	}

	if status, body := f.do("POST", "/kruise/api/sandboxes/"+id+"/pause", "", nil); status >= 300 {
		t.Fatalf("pause: %d %s", status, body)
	}
	if status, _ := execute("x"); status != http.StatusBadGateway {
		t.Fatalf("paused: %d", status)
	}
	if status, body := f.do("POST", "/kruise/api/sandboxes/"+id+"/resume", `{"timeout":300}`, nil); status >= 300 {
		t.Fatalf("resume: %d %s", status, body)
	}
	if status, body := execute("x"); status != http.StatusOK || !strings.Contains(body, `"text": "40"`) {
		t.Fatalf("after resume, the kernel kept its variables: %d %s", status, body)
	}

	base, _ := f.create("base")
	if status, body := f.do("POST", "/kruise/"+base+"/49999/execute", `{"code":"1"}`, nil); status != http.StatusBadGateway ||
		!strings.Contains(body, "nothing listens on port 49999") {
		t.Fatalf("base sandbox: %d %s", status, body)
	}
	if f.g.Jupyter(base) != nil {
		t.Fatal("a base sandbox has a code interpreter")
	}

	if status, _ := f.do("DELETE", "/kruise/api/sandboxes/"+id, "", nil); status != http.StatusNoContent {
		t.Fatalf("kill: %d", status)
	}
	if f.g.Jupyter(id) != nil {
		t.Fatal("killed sandbox still has a code interpreter")
	}
}

// A request routed by its path to one sandbox port and by its headers or
// its Host to another is refused: which one was meant cannot be told, and
// the path may be a client's, appended to a forwarder's rule.
func TestARouteThatDisagreesIsRefused(t *testing.T) {
	t.Parallel()
	f := newGatewayFixture(t)
	id, token := f.create("base")
	other, _ := f.create("base")
	before := len(f.g.Envd(other).Requests())
	for _, h := range []map[string]string{
		{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "8080"},
		{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "49983"},
	} {
		h["X-Access-Token"] = token
		if status, body := f.do("GET", "/kruise/"+other+"/49983/health", "", h); status != http.StatusBadRequest {
			t.Errorf("path to %s, headers %v: %d %s, want 400", other, h, status, body)
		}
	}
	req, _ := http.NewRequest("GET", f.url+"/kruise/"+other+"/49983/health", nil)
	req.Host = "8080-" + id + ".localhost"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("path to %s, Host of %s: %d, want 400", other, id, resp.StatusCode)
	}
	if status, body := f.do("GET", "/kruise/"+id+"/49983/health", "", map[string]string{"E2b-Sandbox-Id": id,
		"E2b-Sandbox-Port": "49983", "X-Access-Token": token}); status >= 300 {
		t.Errorf("path and headers that agree: %d %s", status, body)
	}
	if after := len(f.g.Envd(other).Requests()); after != before {
		t.Errorf("the other sandbox's envd heard %d requests", after-before)
	}
}

// A guarded sandbox's ports need its traffic token, as the sandbox-gateway
// checks it: none, a wrong one or an expired one is 403, on every port;
// with it the request passes, without the token.
func TestGuardedSandboxNeedsItsTrafficToken(t *testing.T) {
	t.Parallel()
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	m := manager.New(manager.Options{APIKey: "k", Now: clock, TrafficTokenValidity: time.Minute, KeepRequests: true})
	g := NewGateway(m, t.TempDir(), "")
	ts := httptest.NewServer(g)
	t.Cleanup(ts.Close)
	t.Cleanup(g.Close)
	f := &gatewayFixture{t: t, url: ts.URL, m: m, g: g}
	status, body := f.do("POST", "/kruise/api/sandboxes", `{"templateID":"base","metadata":{"`+manager.JWTAuthKey+`":"true"}}`, nil)
	var made struct{ SandboxID, TrafficAccessToken string }
	if err := json.Unmarshal([]byte(body), &made); status != http.StatusCreated || err != nil || made.TrafficAccessToken == "" {
		t.Fatalf("create: %d %s", status, body)
	}
	var heard atomic.Value
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Store(r.Header.Get("E2B-Traffic-Access-Token"))
		_, _ = io.WriteString(w, "web")
	}))
	t.Cleanup(web.Close)
	webPort := strconv.Itoa(web.Listener.Addr().(*net.TCPAddr).Port)
	for _, port := range []string{"49983", webPort} {
		for _, token := range []string{"", "not-a-token"} {
			h := map[string]string{}
			if token != "" {
				h["E2B-Traffic-Access-Token"] = token
			}
			if status, body := f.do("GET", "/kruise/"+made.SandboxID+"/"+port+"/health", "", h); status != http.StatusForbidden ||
				!strings.Contains(body, "traffic access token") {
				t.Errorf("port %s, token %q: %d %s, want 403", port, token, status, body)
			}
		}
	}
	with := map[string]string{"E2B-Traffic-Access-Token": made.TrafficAccessToken}
	if status, body := f.do("GET", "/kruise/"+made.SandboxID+"/"+webPort+"/", "", with); status != http.StatusOK || body != "web" {
		t.Fatalf("with the token: %d %s", status, body)
	}
	if v, _ := heard.Load().(string); v != "" {
		t.Errorf("the sandbox's server was sent the token %q", v)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if status, body := f.do("GET", "/kruise/"+made.SandboxID+"/"+webPort+"/", "", with); status != http.StatusForbidden ||
		!strings.Contains(body, "expired") {
		t.Errorf("with an expired token: %d %s, want 403", status, body)
	}
}
