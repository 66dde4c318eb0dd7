//go:build unix

package root

import (
	"fmt"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
)

// Transient failures of the API: every idempotent call is tried again and
// succeeds; a create whose request may have arrived is not, and says so.
func TestFaultsTransient(t *testing.T) {
	t.Parallel()
	api := "^/kruise/api/"
	unavailable := func(method, path string, code int) []faultproxy.Rule {
		return []faultproxy.Rule{{Method: method, Path: path, Times: 2,
			Fault: faultproxy.Status(code, fmt.Sprintf(`{"code":%d,"message":"try later"}`, code))}}
	}
	runFaultsApart(t, "base", []faultCase{
		{name: "503 on info", args: []string{"info", "ID"}, rules: unavailable("GET", api+"sandboxes/", 503)},
		{name: "502 on list", args: []string{"list"}, rules: unavailable("GET", api, 502)},
		{name: "504 on connect", args: []string{"connect", "ID"}, rules: unavailable("POST", "/connect$", 504)},
		{name: "503 on timeout", args: []string{"timeout", "ID", "10m"}, rules: unavailable("POST", "/timeout$", 503)},
		{name: "429 on pause", args: []string{"pause", "ID"}, rules: unavailable("POST", "/pause$", 429)},
		{name: "503 on resume", before: [][]string{{"pause", "ID"}}, args: []string{"resume", "ID"},
			rules: unavailable("POST", "/resume$", 503)},
		{name: "reset before kill", args: []string{"kill", "ID"},
			rules: []faultproxy.Rule{{Method: "DELETE", Path: api, Times: 1, Fault: faultproxy.Reset()}},
			check: func(t *testing.T, f *faulty, _ result) {
				if n := f.proxy.Count("DELETE", api); n != 2 {
					t.Errorf("%d DELETEs, want 2", n)
				}
			}},
		// Still failing after every try: the last answer, how many tries.
		{name: "503 for ever", args: []string{"info", "ID", "--retries", "2"}, want: 1,
			wantErr: `^error\[E5002\]: .*\(after 3 tries\)`,
			rules:   []faultproxy.Rule{{Method: "GET", Path: api + "sandboxes/", Fault: faultproxy.Status(503, `{"code":503,"message":"down"}`)}}},
	})

	// Retry-After is honoured: the second try waits the second it asks.
	t.Run("Retry-After", func(t *testing.T) {
		t.Parallel()
		f := newFaulty(t, "base")
		start := time.Now()
		runFault(t, f, faultCase{args: []string{"info", "ID"},
			rules: []faultproxy.Rule{{Method: "GET", Path: api + "sandboxes/", Times: 1,
				Fault: faultproxy.Status(429, `{"code":429,"message":"slow down"}`, "Retry-After", "1")}}})
		if took := time.Since(start); took < time.Second {
			t.Errorf("the retry came after %s, before Retry-After's 1s", took)
		}
	})
}

// A create that reached the server before the connection broke may have
// made a sandbox: abx does not send it again, and says how to look.
func TestFaultsCreateIsNotRepeated(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "")
	runFault(t, f, faultCase{name: "reset after create", args: []string{"create", "--template", "base", "--metadata", "run=r1"},
		want: 1, wantErr: `^error\[E5001\]: the connection broke after the create request was sent: the sandbox may have been created .*'abx list'`,
		rules: []faultproxy.Rule{{Method: "POST", Path: "/sandboxes$", Fault: faultproxy.ResetAfter()}},
		check: func(t *testing.T, f *faulty, _ result) {
			if n := f.proxy.Count("POST", "/sandboxes$"); n != 1 {
				t.Errorf("%d creates sent, want 1", n)
			}
			if n := len(f.srv.Sandboxes()); n != 1 {
				t.Errorf("%d sandboxes, want the one the first create made", n)
			}
		}})
	// One that never left this machine is safe to send again.
	runFault(t, f, faultCase{name: "503 on create", args: []string{"create", "--template", "base"}, want: 1,
		wantErr: `^error\[E5002\]`,
		rules:   []faultproxy.Rule{{Method: "POST", Path: "/sandboxes$", Times: 1, Fault: faultproxy.Status(503, `{"code":503,"message":"busy"}`)}},
		check: func(t *testing.T, f *faulty, _ result) {
			if n := f.proxy.Count("POST", "/sandboxes$"); n != 1 {
				t.Errorf("a create answered 503 was sent %d times, want once: the server may have acted on it", n)
			}
		}})
}
