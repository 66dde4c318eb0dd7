package alicloudcontainer

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The client refuses an ID that would change the path it goes into before
// any request, whichever door handed it over: ".." would make
// DELETE /sandboxes/.. a request for the API's root, with the key.
func TestTheClientRefusesAnIDThatMovesThePath(t *testing.T) {
	t.Parallel()
	var heard atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		heard.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	ctx := context.Background()
	for _, id := range []string{"..", ".", "", "a/b", "x/../..", "a b"} {
		for name, call := range map[string]func() error{
			"get":     func() error { _, err := c.Get(ctx, id); return err },
			"connect": func() error { _, err := c.Connect(ctx, id, 0); return err },
			"kill":    func() error { return c.Kill(ctx, id) },
			"timeout": func() error { return c.SetTimeout(ctx, id, 60e9) },
			"pause":   func() error { return c.Pause(ctx, id) },
			"resume":  func() error { return c.Resume(ctx, id, 0) },
			"endpoint": func() error {
				_, err := c.Endpoint(ctx, id, 8080)
				return err
			},
			"port url": func() error { _, err := c.PortURL(id, 8080); return err },
		} {
			if err := call(); err == nil || abxerr.From(err).Code != abxerr.InvalidInput {
				t.Errorf("%s %q: %v, want E1002", name, id, err)
			}
		}
	}
	if n := heard.Load(); n != 0 {
		t.Errorf("the service heard %d requests", n)
	}
}
