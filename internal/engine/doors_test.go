//go:build unix

package engine_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/engine"
)

// send makes one request to the engine with these headers and returns the
// status and the body.
func (fx *fixture) send(t *testing.T, method, path string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, fx.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// getPort sends GET path to port of sandbox id through the engine's data
// plane, with the engine's token; the caller closes the answer's body.
func (fx *fixture) getPort(t *testing.T, id string, port int, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", fx.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("E2b-Sandbox-Id", id)
	req.Header.Set("E2b-Sandbox-Port", strconv.Itoa(port))
	req.Header.Set("X-Access-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// create makes a sandbox of template through the engine and returns its
// answer.
func (fx *fixture) create(t *testing.T, template string) map[string]any {
	t.Helper()
	return fx.createWith(t, `{"templateID":"`+template+`"}`)
}

// createWith creates a sandbox with this JSON body.
func (fx *fixture) createWith(t *testing.T, body string) map[string]any {
	t.Helper()
	status, body := fx.do(t, "POST", "/v2/sandboxes", token, body)
	var created map[string]any
	if err := json.Unmarshal([]byte(body), &created); status != 201 || err != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	return created
}

// sandboxToken is the sandbox's own envd access token, which only abx and
// envd may know.
func (fx *fixture) sandboxToken(t *testing.T, id string) string {
	t.Helper()
	for _, s := range fx.emu.Manager.Sandboxes() {
		if s.ID == id && s.EnvdAccessToken != "" {
			return s.EnvdAccessToken
		}
	}
	t.Fatalf("sandbox %s has no envd access token", id)
	return ""
}

// echo is a server of a sandbox: the emulator's sandboxes share this
// machine's network, so port N of a sandbox is 127.0.0.1:N here. It keeps
// the headers of every request it gets.
type echo struct {
	srv  *httptest.Server
	port int

	mu    sync.Mutex
	heard []http.Header
}

func newEcho(t *testing.T) *echo {
	t.Helper()
	e := &echo{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.heard = append(e.heard, r.Header.Clone())
		e.mu.Unlock()
		_, _ = io.WriteString(w, "echo")
	}))
	t.Cleanup(e.srv.Close)
	e.port = e.srv.Listener.Addr().(*net.TCPAddr).Port
	return e
}

func (e *echo) requests() []http.Header {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]http.Header(nil), e.heard...)
}

// Every request for envd's and the code interpreter's ports needs the
// engine's token, and for every port of a sandbox created private
// (network.allowPublicTraffic false): the code interpreter's /execute runs
// code, and a page that knows a sandbox's ID must not run it there. The
// token is taken in either header the official SDKs send it in:
// X-Access-Token (envd, and /execute) or E2B-Traffic-Access-Token (the
// interpreter's /contexts carry only that one).
func TestEveryPortOfAPrivateSandboxNeedsTheToken(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	created := fx.createWith(t, `{"templateID":"code-interpreter","network":{"allowPublicTraffic":false}}`)
	id := created["sandboxID"].(string)
	if created["envdAccessToken"] != token || created["trafficAccessToken"] != token {
		t.Errorf("create handed out %v and %v, want the engine's token as both", created["envdAccessToken"], created["trafficAccessToken"])
	}
	for _, path := range []string{"/sandboxes/" + id, "/sandboxes/" + id + "/connect"} {
		method := map[bool]string{true: "POST", false: "GET"}[strings.HasSuffix(path, "/connect")]
		status, body := fx.do(t, method, path, token, `{"timeout":300}`)
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); status >= 300 || err != nil || got["trafficAccessToken"] != token {
			t.Errorf("%s %s: %d %s, want the engine's token as trafficAccessToken", method, path, status, body)
		}
	}
	web := newEcho(t)
	interp := fx.emu.Gateway.Jupyter(id)
	execute := `{"code":"open('/tmp/ran', 'w').write('x')"}`
	to := func(port int, more ...string) map[string]string {
		h := map[string]string{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": strconv.Itoa(port), "Content-Type": "application/json"}
		for i := 0; i+1 < len(more); i += 2 {
			h[more[i]] = more[i+1]
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		method string
		path   string
		header map[string]string
	}{
		{"/execute without a token", "POST", "/execute", to(49999)},
		{"/execute with a wrong token", "POST", "/execute", to(49999, "X-Access-Token", "wrong")},
		{"/execute with the provider's key", "POST", "/execute", to(49999, "X-Access-Token", fx.emu.APIKey, "X-API-Key", fx.emu.APIKey)},
		{"/execute with the token as the API key", "POST", "/execute", to(49999, "X-API-Key", token)},
		{"/contexts without a token", "GET", "/contexts", to(49999)},
		{"/contexts with a wrong traffic token", "POST", "/contexts", to(49999, "E2B-Traffic-Access-Token", "wrong")},
		{"a server's port without a token", "GET", "/", to(web.port)},
		{"envd without a token", "GET", "/health", to(49983)},
		{"a port by its host without a token", "GET", "/", map[string]string{"Host": strconv.Itoa(web.port) + "-" + id + ".localhost:" + strconv.Itoa(fx.port)}},
		{"a port with a wrong token", "GET", "/", to(web.port, "E2B-Traffic-Access-Token", "wrong")},
	} {
		if status, body := fx.send(t, tc.method, tc.path, tc.header, execute); status != 401 || !strings.Contains(body, `"code":401`) {
			t.Errorf("%s: %d %s, want 401 in E2B's envelope", tc.name, status, body)
		}
	}
	if n := len(interp.Requests()); n != 0 {
		t.Errorf("the interpreter heard %d requests without the token", n)
	}
	if n := len(web.requests()); n != 0 {
		t.Errorf("the sandbox's server heard %d requests without the token", n)
	}

	// With it, in either header, everything works.
	if status, body := fx.send(t, "POST", "/execute", to(49999, "X-Access-Token", token, "E2B-Traffic-Access-Token", token), execute); status != 200 ||
		!strings.Contains(body, "end_of_execution") {
		t.Errorf("/execute with the token: %d %s", status, body)
	}
	if status, body := fx.send(t, "POST", "/contexts", to(49999, "E2B-Traffic-Access-Token", token), `{"language":"python"}`); status != 200 ||
		!strings.Contains(body, `"id"`) {
		t.Errorf("/contexts with the traffic token alone: %d %s", status, body)
	}
	if status, body := fx.send(t, "GET", "/", to(web.port, "X-Access-Token", token), ""); status != 200 || body != "echo" {
		t.Errorf("a server's port with the token: %d %s", status, body)
	}
	if status, body := fx.send(t, "GET", "/", to(web.port, "E2B-Traffic-Access-Token", token), ""); status != 200 || body != "echo" {
		t.Errorf("a server's port with the traffic token: %d %s", status, body)
	}
}

// A port of a sandbox nobody guards is open, as on the cluster, where
// anyone who reaches the gateway reaches it: served without the engine's
// token, and sent no credential. envd's and the code interpreter's ports
// stay closed without it. The sandbox's info says its traffic is public;
// a private one's says it is not, and shows no mark among its metadata.
func TestAnUnguardedSandboxsPortsAreOpen(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	web := newEcho(t)
	id := fx.create(t, "code-interpreter")["sandboxID"].(string)
	host := strconv.Itoa(web.port) + "-" + id + ".localhost:" + strconv.Itoa(fx.port)
	if status, body := fx.send(t, "GET", "/", map[string]string{"Host": host}, ""); status != 200 || body != "echo" {
		t.Errorf("an open port without a token: %d %s", status, body)
	}
	for _, h := range web.requests() {
		for _, name := range []string{"X-Access-Token", "E2B-Traffic-Access-Token", "X-API-Key", "Authorization"} {
			if v := h.Get(name); v != "" {
				t.Errorf("the open port heard %s: %q", name, v)
			}
		}
	}
	for _, port := range []int{49983, 49999} {
		h := map[string]string{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": strconv.Itoa(port)}
		if status, _ := fx.send(t, "GET", "/health", h, ""); status != 401 {
			t.Errorf("port %d of an unguarded sandbox without a token: %d, want 401", port, status)
		}
	}
	status, body := fx.do(t, "GET", "/sandboxes/"+id, token, "")
	if status != 200 || strings.Contains(body, `"network"`) {
		t.Errorf("info of a sandbox with no network settings: %d %s, want no network", status, body)
	}
	private := fx.createWith(t, `{"templateID":"base","network":{"allowPublicTraffic":false},"metadata":{"owner":"me"}}`)
	status, body = fx.do(t, "GET", "/sandboxes/"+private["sandboxID"].(string), token, "")
	if status != 200 || !strings.Contains(body, `"network":{"allowPublicTraffic":false}`) || strings.Contains(body, "abx.dev") ||
		!strings.Contains(body, `"owner":"me"`) {
		t.Errorf("info of a private sandbox: %d %s", status, body)
	}
}

// A port the user made public (a web app a browser opens, which sends no
// token) is served without the token, and is sent no credential at all:
// not the sandbox's tokens, not the engine's. envd's and the
// interpreter's ports can never be public.
func TestAPublicPortNeedsNoTokenAndGetsNoCredential(t *testing.T) {
	t.Parallel()
	web := newEcho(t)
	fx := startShared(t, func(o *engine.Options) { o.PublicPorts = []int{web.port, 49983, 49999} })
	id := fx.create(t, "code-interpreter")["sandboxID"].(string)
	host := strconv.Itoa(web.port) + "-" + id + ".localhost:" + strconv.Itoa(fx.port)
	if status, body := fx.send(t, "GET", "/", map[string]string{"Host": host}, ""); status != 200 || body != "echo" {
		t.Errorf("the public port without a token: %d %s", status, body)
	}
	// A client that sends the token anyway does not pass it on.
	if status, body := fx.send(t, "GET", "/", map[string]string{"Host": host, "X-Access-Token": token,
		"E2B-Traffic-Access-Token": token, "X-API-Key": token}, ""); status != 200 || body != "echo" {
		t.Errorf("the public port with a token: %d %s", status, body)
	}
	for _, h := range web.requests() {
		for _, name := range []string{"X-Access-Token", "E2B-Traffic-Access-Token", "X-API-Key", "Authorization"} {
			if v := h.Get(name); v != "" {
				t.Errorf("the public port heard %s: %q", name, v)
			}
		}
	}
	for _, port := range []string{"49983", "49999"} {
		if status, _ := fx.send(t, "GET", "/health", map[string]string{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": port}, ""); status != 401 {
			t.Errorf("port %s made public: %d without a token, want 401", port, status)
		}
	}
	// That a public port is a port (1 to 65535) is the catalogue's rule,
	// which --public-port reads (the providers' tests hold it).
	for _, port := range []int{49983, 49999} {
		if err := engine.CheckPublicPort(port); err == nil {
			t.Errorf("CheckPublicPort(%d) took it", port)
		}
	}
	if err := engine.CheckPublicPort(3000); err != nil {
		t.Errorf("CheckPublicPort(3000): %v", err)
	}
}

// A sandbox's own servers learn none of the credentials: the envd token
// goes to envd and the interpreter only, the provider's API key to the
// API only, and the engine's token no further than the engine.
func TestASandboxsServersGetNoCredential(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	web := newEcho(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	own := fx.sandboxToken(t, id)
	header := map[string]string{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": strconv.Itoa(web.port), "X-Access-Token": token,
		"E2B-Traffic-Access-Token": token, "X-API-Key": token}
	if status, body := fx.send(t, "GET", "/", header, ""); status != 200 || body != "echo" {
		t.Fatalf("the server's port: %d %s", status, body)
	}
	heard := web.requests()
	if len(heard) != 1 {
		t.Fatalf("the server heard %d requests", len(heard))
	}
	for name, vs := range heard[0] {
		for _, v := range vs {
			for _, secret := range []string{own, fx.emu.APIKey, token} {
				if strings.Contains(v, secret) {
					t.Errorf("the sandbox's server heard %s: %q", name, v)
				}
			}
		}
	}
	if v := heard[0].Get("X-Access-Token"); v != "" {
		t.Errorf("the sandbox's server heard X-Access-Token %q", v)
	}
}

// The engine serves this machine's clients: a Host that is not a name of
// this machine came by way of DNS rebinding, an Origin of a page elsewhere
// from a browser on that page's behalf. Both get 403 and reach nothing.
func TestTheEngineServesThisMachineOnly(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	web := newEcho(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	before := len(fx.emu.Manager.Requests())
	port := strconv.Itoa(fx.port)
	for _, h := range []map[string]string{
		{"Host": "evil.example:" + port, "X-API-Key": token},
		{"Host": "localhost.evil.example:" + port, "X-API-Key": token},
		{"Host": "127.0.0.1:" + port, "Origin": "https://evil.example", "X-API-Key": token},
		{"Host": "127.0.0.1:" + port, "Origin": "null", "X-API-Key": token},
		{"Host": "evil.example:" + port, "E2b-Sandbox-Id": id, "E2b-Sandbox-Port": strconv.Itoa(web.port), "X-Access-Token": token},
		{"Host": strconv.Itoa(web.port) + "-" + id + ".localhost:" + port, "Origin": "https://evil.example", "X-Access-Token": token},
	} {
		if status, _ := fx.send(t, "GET", "/v2/sandboxes", h, ""); status != 403 {
			t.Errorf("%v: %d, want 403", h, status)
		}
	}
	if after := len(fx.emu.Manager.Requests()); after != before {
		t.Errorf("the provider heard %d requests", after-before)
	}
	if n := len(web.requests()); n != 0 {
		t.Errorf("the sandbox's server heard %d requests", n)
	}
	// What the SDKs and a browser on this machine send is served.
	for _, h := range []map[string]string{
		{"Host": "127.0.0.1:" + port, "X-API-Key": token},
		{"Host": "localhost:" + port, "Origin": "http://localhost:5173", "X-API-Key": token},
		{"Host": strconv.Itoa(web.port) + "-" + id + ".localhost:" + port, "X-Access-Token": token},
		{"Host": strconv.Itoa(web.port) + "-" + id + ".localhost:" + port, "Origin": "http://" + strconv.Itoa(web.port) + "-" + id + ".localhost:" + port,
			"X-Access-Token": token},
	} {
		if status, body := fx.send(t, "GET", "/v2/sandboxes", h, ""); status != 200 {
			t.Errorf("%v: %d %s", h, status, body)
		}
	}
}

// An ID that would move the path it goes into is refused by the engine
// before the provider hears of it: DELETE /sandboxes/%2e%2e would be
// DELETE /sandboxes/.. with the key.
func TestTheEngineRefusesAnIDThatMovesThePath(t *testing.T) {
	t.Parallel()
	fx := start(t)
	before := len(fx.emu.Manager.Requests())
	for _, r := range []struct{ method, path string }{
		{"DELETE", "/sandboxes/%2e%2e"},
		{"GET", "/sandboxes/%2E%2E"},
		{"POST", "/sandboxes/%2e%2e/pause"},
		{"POST", "/v2/sandboxes/%2e%2e/connect"},
		{"GET", "/sandboxes/..%2F..%2Fv2%2Fsandboxes"},
		{"GET", "/sandboxes/%2e%2e/metrics"},
		{"GET", "/sandboxes/metrics?sandbox_ids=ok,%2e%2e"},
	} {
		status, body := fx.do(t, r.method, r.path, token, `{"timeout":60}`)
		if status != 400 || !strings.Contains(body, `"abxCode":"E1002"`) {
			t.Errorf("%s %s: %d %s, want 400 E1002", r.method, r.path, status, body)
		}
	}
	if status, body := fx.send(t, "GET", "/health", map[string]string{"E2b-Sandbox-Id": "..", "E2b-Sandbox-Port": "49983",
		"X-Access-Token": token}, ""); status != 400 || !strings.Contains(body, `"abxCode":"E1002"`) {
		t.Errorf("the data plane with the ID ..: %d %s", status, body)
	}
	if after := len(fx.emu.Manager.Requests()); after != before {
		for _, r := range fx.emu.Manager.Requests()[before:] {
			t.Errorf("the provider heard %s %s", r.Method, r.Path)
		}
	}
}

// A port of a sandbox is 1 to 65535, the operation's rule: a request
// that names another, by header or by host, is refused (400) before the
// provider hears of it, not taken for a call of the control plane.
func TestTheDataPlaneRefusesAPortOutOfRange(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	before := len(fx.emu.Manager.Requests())
	for _, h := range []map[string]string{
		{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "0", "X-Access-Token": token},
		{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "70000", "X-Access-Token": token},
		{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "-1", "X-Access-Token": token},
		{"Host": "70000-" + id + ".localhost:" + strconv.Itoa(fx.port), "X-Access-Token": token},
	} {
		status, body := fx.send(t, "GET", "/", h, "")
		if status != 400 || !strings.Contains(body, `"abxCode":"E1002"`) || !strings.Contains(body, "must be between 1 and 65535") {
			t.Errorf("%v: %d %s, want 400 E1002", h, status, body)
		}
	}
	if after := len(fx.emu.Manager.Requests()); after != before {
		for _, r := range fx.emu.Manager.Requests()[before:] {
			t.Errorf("the provider heard %s %s", r.Method, r.Path)
		}
	}
}

// An engine on an address that is not loopback (--allow-remote) is
// reached by names abx cannot know: any Host is served, with the token;
// a page of another origin is refused still.
func TestAnEngineOpenToTheNetworkStillRefusesPagesElsewhere(t *testing.T) {
	t.Parallel()
	fx := startShared(t, func(o *engine.Options) { o.AnyHost = true })
	if status, body := fx.send(t, "GET", "/v2/sandboxes", map[string]string{"Host": "build-box.example:" + strconv.Itoa(fx.port),
		"X-API-Key": token}, ""); status != 200 {
		t.Errorf("a Host of the network: %d %s", status, body)
	}
	if status, _ := fx.send(t, "GET", "/v2/sandboxes", map[string]string{"Host": "build-box.example", "Origin": "https://evil.example",
		"X-API-Key": token}, ""); status != 403 {
		t.Errorf("a page elsewhere: %d, want 403", status)
	}
	if status, _ := fx.send(t, "GET", "/v2/sandboxes", map[string]string{"Host": "build-box.example"}, ""); status != 401 {
		t.Errorf("without the token: %d, want 401", status)
	}
}

// A forwarded path is appended to the port's URL rule (/kruise/ID/PORT on
// the gateway): one that climbs out of it with '..' (in any spelling) is
// refused, and nothing reaches the provider or another sandbox.
func TestTheDataPlaneRefusesAPathThatLeavesThePort(t *testing.T) {
	t.Parallel()
	fx := start(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	before := len(fx.emu.Manager.Requests())
	addr := strings.TrimPrefix(fx.url, "http://")
	for _, target := range []string{"/../../api/sandboxes", "/%2e%2e/%2E%2E/api/sandboxes", "/..%2F..%2Fapi%2Fsandboxes"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(conn, "DELETE "+target+" HTTP/1.1\r\nHost: "+addr+"\r\nE2b-Sandbox-Id: "+id+
			"\r\nE2b-Sandbox-Port: 49983\r\nX-Access-Token: "+token+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		_ = conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", target, resp.StatusCode)
		}
	}
	if after := len(fx.emu.Manager.Requests()); after != before {
		for _, r := range fx.emu.Manager.Requests()[before:] {
			t.Errorf("the provider heard %s %s", r.Method, r.Path)
		}
	}
}

// A sandbox's server that echoes the cluster's key (it may have learned
// it anywhere) gets it to no client of the engine.
func TestForwardedAnswersAreRedacted(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Seen", "key="+fx.emu.APIKey)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	id := fx.create(t, "base")["sandboxID"].(string)
	resp := fx.getPort(t, id, port, "/")
	_ = resp.Body.Close()
	if v := resp.Header.Get("X-Seen"); resp.StatusCode != 200 || strings.Contains(v, fx.emu.APIKey) || v == "" {
		t.Errorf("%d X-Seen %q: the key passed, or the header was lost", resp.StatusCode, v)
	}
}
