//go:build unix

package root

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
)

// A redirect to another origin is refused, whatever its status and
// whatever the call: no credential, and no request at all, reaches the
// other origin. A redirect that would turn a request with a body into a
// GET is refused within the origin too.
func TestFaultsRedirects(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	other := faultproxy.NewOrigin(`{"sandboxID":"elsewhere","templateID":"base","clientID":"x"}`)
	t.Cleanup(other.Close)
	local := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(local, []byte("payload\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	offsite := `^error\[E5004\]: the service redirected .* to another origin`
	var cases []faultCase
	for _, code := range []int{301, 302, 303, 307, 308} {
		// Each redirect is refused, and sent once: a refusal would come
		// back the same on every try.
		refused := func(name string, args []string, method, path string, want int, wantErr string) {
			cases = append(cases, faultCase{name: fmt.Sprintf("%d %s", code, name), args: args, want: want, wantErr: wantErr,
				rules: []faultproxy.Rule{{Method: method, Path: path, Fault: faultproxy.Redirect(code, other.URL)}},
				check: func(t *testing.T, f *faulty, _ result) {
					if n := f.proxy.Count(method, path); n != 1 {
						t.Errorf("%s %s sent %d times, want once", method, path, n)
					}
				}})
		}
		refused("info", []string{"info", "ID"}, "GET", `^/kruise/api/sandboxes/`, 1, offsite)
		refused("create", []string{"create", "--template", "base"}, "POST", `^/kruise/api/sandboxes$`, 1, offsite)
		refused("kill", []string{"kill", "ID"}, "DELETE", `^/kruise/api/sandboxes/`, 1, offsite)
		refused("exec", []string{"exec", "ID", "--", "true"}, "POST", startPath, 125, offsite)
		refused("files read", []string{"files", "read", "ID", "/etc/hostname"}, "GET", filesPath, 1, offsite)
		refused("files write", []string{"files", "write", "ID", "/home/user/up.txt", "--from", local}, "POST", filesPath, 1,
			`^error\[E5004\]: .*redirected`)
	}
	runFaults(t, f, cases)
	if reqs := other.Requests(); len(reqs) != 0 {
		for _, r := range reqs {
			t.Errorf("the other origin got %s %s with X-API-Key %q, X-Access-Token %q, Authorization %q",
				r.Method, r.URL, r.Header.Get("X-API-Key"), r.Header.Get("X-Access-Token"), r.Header.Get("Authorization"))
		}
	}

	// Within the origin, an upload moved with 302 would become a GET.
	runFault(t, f, faultCase{name: "302 upload same origin", args: []string{"files", "write", "ID", "/home/user/up.txt", "--from", local},
		rules: []faultproxy.Rule{{Method: "POST", Path: filesPath, Fault: faultproxy.Redirect(302, f.proxy.URL)}},
		want:  1, wantErr: `^error\[E5004\]: the service redirected POST .* with 302, which would resend it as GET`})
}
