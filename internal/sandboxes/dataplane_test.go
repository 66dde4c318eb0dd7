package sandboxes

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// A sandbox's ports: every port named is checked (1 to 65535) before the
// sandbox is read, and each gets its endpoint, in order.
func TestEndpointsOfPorts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.PortsURL)
	eps, err := s.Endpoint(ctx, "sb", 8080, 49983)
	if err != nil || len(eps) != 2 || eps[0].Port != 8080 || eps[1].Port != 49983 {
		t.Fatalf("endpoints %+v, %v", eps, err)
	}
	before := p.reads.Load()
	for _, ports := range [][]int{{0}, {8080, 65536}, {-1}, {8080, 70000, 8081}} {
		_, err := s.Endpoint(ctx, "sb", ports...)
		if e := abxerr.From(err); e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, "must be between 1 and 65535") {
			t.Errorf("ports %v: %v", ports, err)
		}
	}
	if p.reads.Load() != before {
		t.Errorf("the sandbox was read %d times for ports refused", p.reads.Load()-before)
	}
	// The door's words name the port as it takes it.
	_, err = s.Endpoint(WithSpelling(ctx, Spelling{Names: map[string]string{"port": "REMOTE"}, Quote: true}), "sb", 0)
	if err == nil || err.Error() != `invalid REMOTE "0": must be between 1 and 65535` {
		t.Errorf("spelled: %v", err)
	}
}
