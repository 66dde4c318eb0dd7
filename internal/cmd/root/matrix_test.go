//go:build unix

package root

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEveryCommandEveryWay runs each command against the fake over both
// path sets, in table and JSON output, on a terminal and through a pipe.
func TestEveryCommandEveryWay(t *testing.T) {
	t.Parallel()
	for _, proto := range []struct{ name, protocol, path, prefix string }{
		{"native", "native", "", "/sandboxes"},
		{"private", "private", "/kruise/api", "/kruise/api/sandboxes"},
	} {
		for _, tty := range []bool{false, true} {
			for _, format := range []string{"table", "json"} {
				name := proto.name + "/" + format + map[bool]string{true: "/tty", false: "/piped"}[tty]
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					srv, e := fakeManager(t)
					e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = proto.protocol
					base := strings.TrimSuffix(e["ABX_ALICLOUD_CONTAINER_BASE_URL"], "/")
					e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = base + proto.path
					e["ABX_ALICLOUD_CONTAINER_DOMAIN"] = "abx.test"

					id := create(t, e, "--auto-pause")
					steps := [][]string{
						{"create", "--template", "base", "--timeout", "90"},
						{"list"}, {"list", "--state", "running", "--limit", "1"},
						{"info", id}, {"timeout", id, "10m"}, {"pause", id}, {"pause", id},
						{"connect", id}, {"connect", id, "--timeout", "5m"},
						{"pause", id}, {"resume", id, "--timeout", "2m"},
						{"url", id, "8080"}, {"capabilities"}, {"config"},
						{"kill", id},
					}
					for _, args := range steps {
						r := run(t, e, tty, append(args, "-o", format)...)
						if r.code != 0 {
							t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
						}
						if format == "json" && !json.Valid([]byte(r.stdout)) {
							t.Errorf("%v: not JSON: %q", args, r.stdout)
						}
						if format == "json" && r.stderr != "" {
							t.Errorf("%v: JSON mode talked on stderr: %q", args, r.stderr)
						}
					}
					for _, req := range srv.Requests() {
						if !strings.HasPrefix(req.Path, proto.prefix) && !strings.HasPrefix(req.Path, strings.TrimSuffix(proto.prefix, "/sandboxes")+"/v2/sandboxes") {
							t.Errorf("%s %s is outside the %s path set", req.Method, req.Path, proto.name)
						}
						if req.Header.Get("X-API-Key") != testKey {
							t.Errorf("%s %s without the key", req.Method, req.Path)
						}
					}
					if n := len(srv.Sandboxes()); n != 1 {
						t.Errorf("%d sandboxes left, want the one created by the steps", n)
					}
				})
			}
		}
	}
}
