package alicloudcontainer

import (
	"context"
	"io"
	"net/http"
	"testing"
)

// Each port gets the credentials it needs and no more: the sandbox's envd
// access token goes to envd and to the code interpreter (which hands it to
// envd), never to a server the sandbox runs on another port, which would
// learn from it how to run anything as anyone in its own sandbox. The
// traffic token is the gateway's, for routing any port of a sandbox whose
// traffic it guards: every port gets it (docs/protocol.md, "Credentials").
func TestEachPortGetsItsOwnCredentials(t *testing.T) {
	t.Parallel()
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"sandboxID":"sb1","templateID":"base","clientID":"c","envdVersion":"0.2.10",`+
			`"envdAccessToken":"envd-tok-1","trafficAccessToken":"traffic-tok-1","domain":"abx.test","state":"running"}`)
	}))
	for _, tc := range []struct {
		port        int
		envd, route bool
	}{
		{0, true, true},
		{49983, true, true},
		{49999, true, true},
		{8080, false, true},
		{3000, false, true},
	} {
		ep, err := c.Endpoint(context.Background(), "sb1", tc.port)
		if err != nil {
			t.Fatalf("port %d: %v", tc.port, err)
		}
		if got := ep.Header.Get("X-Access-Token"); (got == "envd-tok-1") != tc.envd || (got != "" && got != "envd-tok-1") {
			t.Errorf("port %d: X-Access-Token %q, want it %v", tc.port, got, tc.envd)
		}
		if got := ep.Header.Get("E2B-Traffic-Access-Token"); got != "" {
			t.Errorf("port %d: the traffic token among the fixed headers", tc.port)
		}
		if ep.Renewing == nil || ep.Renewing.Name != "E2B-Traffic-Access-Token" {
			t.Fatalf("port %d: no traffic token: %+v", tc.port, ep.Renewing)
		}
		if got, err := ep.Renewing.Value(context.Background()); (got == "traffic-tok-1") != tc.route || err != nil {
			t.Errorf("port %d: E2B-Traffic-Access-Token %q, %v", tc.port, got, err)
		}
		if ep.Header.Get("X-API-Key") != "" {
			t.Errorf("port %d: the API key in a data-plane header", tc.port)
		}
		if ep.Privileged != tc.envd {
			t.Errorf("port %d: Privileged %v, want %v", tc.port, ep.Privileged, tc.envd)
		}
	}
}

// envd's port is the configured one: that port, and the code
// interpreter's, run what they are asked; 49983 is then a port like any.
func TestThePrivilegedPortsFollowTheEnvdPort(t *testing.T) {
	t.Parallel()
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"sandboxID":"sb1","templateID":"base","envdAccessToken":"envd-tok-1","domain":"abx.test","state":"running"}`)
	}))
	c.cfg.EnvdPort = 5000
	for port, want := range map[int]bool{0: true, 5000: true, 49999: true, 49983: false, 8080: false} {
		ep, err := c.Endpoint(context.Background(), "sb1", port)
		if err != nil {
			t.Fatalf("port %d: %v", port, err)
		}
		if ep.Privileged != want || (ep.Header.Get("X-Access-Token") != "") != want {
			t.Errorf("port %d: Privileged %v, X-Access-Token %q; want privileged %v", port, ep.Privileged, ep.Header.Get("X-Access-Token"), want)
		}
	}
}
