//go:build linux

package emulator

import (
	"context"
	"net/http"
	"testing"

	client "github.com/abx-dev/abx/internal/envd"
)

// A sandbox's envd answers GET /metrics through the gateway, as abx
// metrics reads it, to the sandbox's access token only; paused, the
// gateway answers 502 as for any envd call.
func TestMetricsThroughTheGateway(t *testing.T) {
	t.Parallel()
	f := newGatewayFixture(t)
	id, token := f.create("base")
	h := http.Header{}
	h.Set("X-Access-Token", token)
	c := client.New(http.DefaultClient, client.Endpoint{URL: f.url + "/kruise/" + id + "/49983", Header: h, Version: "0.2.10"}, "")
	m, err := c.Metrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUCount < 1 || m.MemUsed > m.MemTotal || m.DiskUsed > m.DiskTotal || m.DiskTotal == 0 {
		t.Errorf("not a sane sample: %+v", m)
	}
	if status, body := f.do("GET", "/kruise/"+id+"/49983/metrics", "", nil); status != http.StatusUnauthorized {
		t.Errorf("without the access token: %d %s", status, body)
	}
	if status, body := f.do("POST", "/kruise/api/sandboxes/"+id+"/pause", "", nil); status >= 300 {
		t.Fatalf("pause: %d %s", status, body)
	}
	if status, body := f.do("GET", "/kruise/"+id+"/49983/metrics", "", map[string]string{"X-Access-Token": token}); status != http.StatusBadGateway {
		t.Errorf("paused: %d %s", status, body)
	}
}
