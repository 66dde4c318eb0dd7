package alicloudcontainer

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// trafficManager answers as sandbox-manager's traffic-token handler does
// (docs/protocol.md, "Traffic tokens that expire"): a describe shows the
// opt-in among the metadata and no token; the refresh route, served under
// /kruise/api only, answers status with the handler's messages.
type trafficManager struct {
	status    int // of the refresh route; 0 is 200
	refreshes atomic.Int32
	paths     chan string
	keys      chan string
}

func (m *trafficManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/sandboxes/sb1"):
		_, _ = io.WriteString(w, `{"sandboxID":"sb1","templateID":"base","envdVersion":"0.2.10","envdAccessToken":"envd-tok",`+
			`"domain":"abx.test","state":"running","metadata":{"security.agents.kruise.io/enable-jwt-auth":"true"}}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sandboxes/sb1/traffic-access-token"):
		m.refreshes.Add(1)
		if m.paths != nil {
			m.paths <- r.URL.Path
			m.keys <- r.Header.Get("X-API-Key")
		}
		w.Header().Set("Content-Type", "application/json")
		msgs := map[int]string{
			400: "Invalid traffic access token refresh request",
			404: "Sandbox not found",
			409: "Sandbox cannot refresh its traffic access token",
			429: "Too many traffic access token refreshes",
			503: "Traffic access token issuer is unavailable",
		}
		if m.status != 0 {
			if m.status == 429 {
				w.Header().Set("Retry-After", "3")
			}
			w.WriteHeader(m.status)
			_, _ = fmt.Fprintf(w, `{"code":%d,"message":%q}`, m.status, msgs[m.status])
			return
		}
		now := time.Now().Truncate(time.Second)
		exp := now.Add(10 * time.Minute)
		claims := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"sub":"sb1","iat":%d,"exp":%d}`, now.Unix(), exp.Unix()))
		_, _ = fmt.Fprintf(w, `{"trafficAccessToken":"eyJhbGciOiJIUzI1NiJ9.%s.sig","trafficAccessTokenExpiration":%q}`,
			claims, exp.UTC().Format(time.RFC3339))
	default:
		http.NotFound(w, r)
	}
}

// A process that never saw the sandbox's create learns from the describe
// that it is guarded, and gets a token from the refresh route, under the
// manager's own prefix, before its first data-plane request: with the
// native protocol's API base and with the private one's.
func TestAGuardedSandboxGetsATokenBeforeItsFirstRequest(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/kruise/api"} {
		m := &trafficManager{paths: make(chan string, 1), keys: make(chan string, 1)}
		ts := httptest.NewServer(m)
		t.Cleanup(ts.Close)
		c, err := New(Config{BaseURL: ts.URL + suffix, APIKey: "k", Protocol: "private", EnvdPort: 49983, RequestTimeout: 5 * time.Second},
			provider.Deps{HTTP: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := c.Endpoint(context.Background(), "sb1", 8080)
		if err != nil {
			t.Fatal(err)
		}
		if ep.Renewing == nil {
			t.Fatalf("base %q: a guarded sandbox's endpoint has no traffic token", suffix)
		}
		if m.refreshes.Load() != 0 {
			t.Errorf("base %q: refreshed before any request wanted a token", suffix)
		}
		tok, err := ep.Renewing.Value(context.Background())
		if err != nil || !strings.HasPrefix(tok, "eyJ") {
			t.Fatalf("base %q: token %q, %v", suffix, tok, err)
		}
		if p, k := <-m.paths, <-m.keys; p != "/kruise/api/sandboxes/sb1/traffic-access-token" || k != "k" {
			t.Errorf("base %q: refreshed at %s with key %q", suffix, p, k)
		}
		// The next endpoint of the same sandbox shares the token.
		ep2, _ := c.Endpoint(context.Background(), "sb1", 49983)
		if tok2, _ := ep2.Renewing.Value(context.Background()); tok2 != tok || m.refreshes.Load() != 1 {
			t.Errorf("base %q: a second endpoint refreshed again (%d)", suffix, m.refreshes.Load())
		}
	}
}

// The refresh route's statuses become abx's errors in one line, and the
// request that needed the token is not sent.
func TestRefreshFailuresSayWhyNothingWasSent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		code   abxerr.Code
		words  string
	}{
		{400, abxerr.Rejected, "Invalid traffic access token refresh request"},
		{404, abxerr.NotFound, "Sandbox not found"},
		{409, abxerr.Rejected, "Sandbox cannot refresh its traffic access token"},
		{429, abxerr.Rejected, "Too many"},
		{503, abxerr.Server, "issuer is unavailable"},
	} {
		m := &trafficManager{status: tc.status}
		c := newClient(t, m)
		ep, err := c.Endpoint(context.Background(), "sb1", 0)
		if err != nil {
			t.Fatal(err)
		}
		var sent atomic.Bool
		port := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent.Store(true) }))
		t.Cleanup(port.Close)
		hc := &http.Client{Transport: ep.Transport(port.Client().Transport)}
		resp, err := hc.Get(port.URL)
		if err == nil {
			_ = resp.Body.Close()
		}
		e := abxerr.From(err)
		if e.Code != tc.code || !strings.Contains(e.Message, "cannot get a traffic token for sandbox sb1") ||
			!strings.Contains(e.Message, tc.words) || strings.Contains(e.Message, "\n") {
			t.Errorf("%d: %s %q", tc.status, e.Code, e.Message)
		}
		if sent.Load() {
			t.Errorf("%d: the request went out without a token", tc.status)
		}
	}
}

// A sandbox that did not opt in, and that no answer gave a token, has no
// traffic token: nothing is asked of the manager for it.
func TestAnUnguardedSandboxHasNoTrafficToken(t *testing.T) {
	t.Parallel()
	c, _ := fakeClient(t)
	s, err := c.Create(context.Background(), provider.CreateRequest{Template: "base", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := c.Endpoint(context.Background(), s.SandboxID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Renewing != nil {
		t.Errorf("an unguarded sandbox's endpoint carries a traffic token")
	}
}

// The create answer's token serves the creating process without a
// refresh; a kill drops it.
func TestTheCreateAnswersTokenIsUsed(t *testing.T) {
	t.Parallel()
	c, srv := fakeClient(t)
	s, err := c.Create(context.Background(), provider.CreateRequest{Template: "base", Timeout: time.Minute,
		Metadata: map[string]string{"security.agents.kruise.io/enable-jwt-auth": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := c.Endpoint(context.Background(), s.SandboxID, 0)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ep.Renewing.Value(context.Background())
	if _, check := srv.CheckTrafficToken(s.SandboxID, tok); err != nil || check != nil {
		t.Fatalf("the create's token: %v, the manager says %v", err, check)
	}
	if err := c.Kill(context.Background(), s.SandboxID); err != nil {
		t.Fatal(err)
	}
	if len(c.traffic.m) != 0 {
		t.Errorf("a killed sandbox's token is still held")
	}
}

// Egress rules go to the manager as it takes them, at create and by
// PUT /sandboxes/{id}/network, and a describe tells them back.
func TestEgressRulesReachTheManager(t *testing.T) {
	t.Parallel()
	c, _ := fakeClient(t)
	s, err := c.Create(context.Background(), provider.CreateRequest{Template: "base", Timeout: time.Minute,
		Network: &provider.Network{DenyOut: []string{"0.0.0.0/0"}, AllowOut: []string{"pypi.org"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(context.Background(), s.SandboxID)
	if err != nil || got.Network == nil || strings.Join(got.Network.DenyOut, ",") != "0.0.0.0/0" ||
		strings.Join(got.Network.AllowOut, ",") != "pypi.org" {
		t.Fatalf("describe after create: %+v, %v", got, err)
	}
	if err := c.SetNetwork(context.Background(), s.SandboxID, provider.Network{DenyOut: []string{"10.0.0.0/8"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get(context.Background(), s.SandboxID); got.Network == nil || strings.Join(got.Network.DenyOut, ",") != "10.0.0.0/8" ||
		got.Network.AllowOut != nil {
		t.Errorf("describe after a replace: %+v", got.Network)
	}
	if err := c.SetNetwork(context.Background(), s.SandboxID, provider.Network{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get(context.Background(), s.SandboxID); got.Network != nil {
		t.Errorf("describe after a clear: %+v", got.Network)
	}
	err = c.SetNetwork(context.Background(), s.SandboxID, provider.Network{DenyOut: []string{"example.com"}})
	if e := abxerr.From(err); e == nil || e.Status != 400 || !strings.Contains(e.Message, "domains are not supported in denyOut") {
		t.Errorf("a domain in denyOut: %v", err)
	}
}
