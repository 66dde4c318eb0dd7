//go:build unix

package root

import (
	"encoding/json"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The install lines the provider catalog's page gives work as written: the
// provider is built in, so abx sends nothing, whatever is configured, and
// says so the same way each time.
func TestCatalogInstallLinesSendNothing(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"provider", "install", "alibaba-agent-sandbox/awesome-providers//alicloud-container", "--allow-unpinned", "--yes"},
		{"provider", "install", "registry:alicloud-container"},
		{"provider", "install", "alicloud-container"},
	} {
		for _, configured := range []bool{true, false} {
			name := strings.Join(args[2:], " ")
			if !configured {
				name += "/no ABX variables"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv, e := fakeManager(t)
				if !configured {
					e = env{}
				}
				var first string
				for i := range 2 {
					r := run(t, e, false, args...)
					if r.code != 0 || r.stderr != "" {
						t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
					}
					if !strings.HasPrefix(r.stdout, "alicloud-container is built into abx ") ||
						!strings.HasSuffix(r.stdout, "; nothing to install\n") || len(r.stdoutLines) != 1 {
						t.Errorf("stdout %q", r.stdout)
					}
					if i == 1 && r.stdout != first {
						t.Errorf("the second run printed %q, the first %q", r.stdout, first)
					}
					first = r.stdout
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("the server got %d requests, want 0", n)
				}
			})
		}
	}
}

// Not even a connection is opened: the API's address accepts and counts
// every one.
func TestCatalogInstallConnectsNowhere(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = "http://" + ln.Addr().String() + "/kruise/api"
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	r := run(t, e, false, "provider", "install", "alibaba-agent-sandbox/awesome-providers//alicloud-container", "--allow-unpinned", "--yes")
	// A sentinel connection, made after abx ended, proves the counter counts.
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		_ = c.Close()
	}
	deadline := time.Now().Add(time.Minute) // a hang guard
	for accepted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_ = ln.Close()
	if r.code != 0 || accepted.Load() != 1 {
		t.Errorf("exit %d; %d connections besides the sentinel", r.code, accepted.Load()-1)
	}
}

func TestInstallJSON(t *testing.T) {
	t.Parallel()
	srv, e := fakeManager(t)
	source := "registry:alicloud-container"
	r := run(t, e, false, "provider", "install", source, "-o", "json")
	var v struct {
		Provider, Version, Source string
		Builtin                   bool
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if v.Provider != "alicloud-container" || !v.Builtin || v.Version == "" || v.Source != source {
		t.Errorf("got %+v", v)
	}
	if r := run(t, e, false, "provider", "install", source, "-o", "name"); r.code != 0 || r.stdout != "alicloud-container\n" {
		t.Errorf("-o name: exit %d, stdout %q", r.code, r.stdout)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests, want 0", n)
	}
}

// What abx does not have is not found (3); what is no SOURCE, and removing
// a built-in provider, are refused as bad input (2). One line on stderr,
// nothing on stdout, nothing sent.
func TestInstallRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // the whole error line
	}{
		{"unknown bare", []string{"provider", "install", "foo"}, 3,
			`error[E3001]: abx has no provider "foo": its providers are built in (alicloud-container), and it installs no plugins; use one of those with --provider or ABX_PROVIDER; 'abx provider list' shows them`},
		{"unknown in the catalog", []string{"provider", "install", "alibaba-agent-sandbox/awesome-providers//e2b", "--allow-unpinned", "--yes"}, 3,
			`error[E3001]: abx has no provider "e2b": `},
		{"unknown in the registry", []string{"provider", "install", "registry:foo"}, 3, `error[E3001]: abx has no provider "foo": `},
		{"uninstall unknown", []string{"provider", "uninstall", "foo"}, 3, `error[E3001]: abx has no provider "foo": `},
		{"uninstall built in", []string{"provider", "uninstall", "alicloud-container"}, 2,
			"error[E1002]: alicloud-container is built into abx and cannot be uninstalled; to stop using it, unset ABX_PROVIDER and drop --provider (nothing was changed)"},
		{"uninstall built in, registry form", []string{"provider", "uninstall", "registry:alicloud-container"}, 2, "error[E1002]: alicloud-container is built into abx"},
		{"URL", []string{"provider", "install", "https://github.com/alibaba-agent-sandbox/awesome-providers"}, 2,
			`error[E1002]: invalid SOURCE "https://github.com/alibaba-agent-sandbox/awesome-providers": a URL, and abx downloads no providers (want OWNER/REPO//ID, registry:ID or ID); for example: abx provider install alicloud-container`},
		{"path", []string{"provider", "install", "/opt/alicloud-container"}, 2, "error[E1002]: invalid SOURCE \"/opt/alicloud-container\": a path"},
		{"empty", []string{"provider", "install", ""}, 2, `error[E1002]: invalid SOURCE "": it is empty`},
		{"empty registry", []string{"provider", "install", "registry:"}, 2, `error[E1002]: invalid SOURCE "registry:": registry: names no ID`},
		{"dot dot", []string{"provider", "install", "../..//alicloud-container"}, 2, "error[E1002]: invalid SOURCE"},
		{"escape", []string{"provider", "install", "\x1b]0;owned\x07"}, 2, `error[E1002]: invalid SOURCE "\x1b]0;owned\a": it holds a space or a control character`},
		{"no SOURCE", []string{"provider", "install"}, 2, "error[E1001]: abx provider install needs SOURCE"},
		{"uninstall malformed", []string{"provider", "uninstall", "a/b//c//d"}, 2, "error[E1002]: invalid SOURCE \"a/b//c//d\": more than one '//'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, e := fakeManager(t)
			r := run(t, e, false, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, tc.want) {
				t.Errorf("stderr %q, want one line starting %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the server got %d requests, want 0", n)
			}
		})
	}
}
