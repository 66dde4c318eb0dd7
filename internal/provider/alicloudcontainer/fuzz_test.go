package alicloudcontainer

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/provider"
)

// FuzzPortURL checks the URL rules against arbitrary settings and server
// answers. Problems must survive any base URL and domain. The configured
// ones only reach PortURL after Problems has accepted them (New refuses the
// rest), so the URL's shape is checked for those alone; the sandbox's
// domain comes from the server and nothing checks it beforehand, so every
// value of it must give a sound URL or an error.
func FuzzPortURL(f *testing.F) {
	f.Add(false, "", "agents.example.com", "", "sb1", 49983)
	f.Add(true, "", "agents.example.com", "", "sb1", 49983)
	f.Add(true, "http://127.0.0.1:18080/kruise/api", "", "agents.example.com", "default--base-abcde", 49983)
	f.Add(false, "http://127.0.0.1:8080/", "agents.example.com:8443", "cn-hz.example.net", "default--code-interpreter-x7k2p", 8080)
	f.Add(true, "", "10.0.0.5:30443", "", "a b?c", 65535)
	f.Add(true, "", "agents.example.com", "evil.example.com/x?", "../..", 1)
	f.Add(true, "", "agents.example.com", "", "a/../../b#c", 80)
	f.Add(false, "", "agents.example.com", "user@evil.example.com", "sb1", 80)
	f.Add(false, "", "[::1]:8443", "", "sb1", 80)
	f.Add(true, "/kruise/api", "", "", "sb1", 0)
	f.Fuzz(func(t *testing.T, private bool, baseURL, domain, sandboxDomain, id string, port int) {
		cfg := Config{Domain: domain, BaseURL: baseURL, APIKey: "k", Protocol: ProtocolNative,
			EnvdPort: provider.EnvdPort, RequestTimeout: time.Second}
		if private {
			cfg.Protocol = ProtocolPrivate
		}
		_ = cfg.APIBase()
		problems := cfg.Problems()
		got, err := cfg.PortURL(id, sandboxDomain, port)
		if err != nil || len(problems) > 0 {
			return
		}
		u, perr := url.Parse(got)
		if perr != nil {
			t.Fatalf("PortURL(%q, %q, %d) = %q, which does not parse: %v", id, sandboxDomain, port, got, perr)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("PortURL(%q, %q, %d) = %q: scheme %q", id, sandboxDomain, port, got, u.Scheme)
		}
		if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" || u.Host == "" {
			t.Fatalf("PortURL(%q, %q, %d) = %q: user, query, fragment, opaque part or no host", id, sandboxDomain, port, got)
		}
		p := strconv.Itoa(port)
		if private {
			segs := strings.Split(u.EscapedPath(), "/")
			if len(segs) != 4 || segs[0] != "" || segs[1] != "kruise" || segs[3] != p {
				t.Fatalf("PortURL(%q, %q, %d) = %q: path %q is not /kruise/<id>/%s", id, sandboxDomain, port, got, u.EscapedPath(), p)
			}
			if back, err := url.PathUnescape(segs[2]); err != nil || back != id {
				t.Fatalf("PortURL(%q, %q, %d) = %q: the ID segment gives back %q, %v", id, sandboxDomain, port, got, back, err)
			}
			// The host must be the one any other ID would get.
			ref, err := cfg.PortURL("x", sandboxDomain, port)
			if err != nil {
				t.Fatalf("PortURL(%q, ...) works but PortURL(\"x\", ...) fails: %v", id, err)
			}
			if ru, err := url.Parse(ref); err != nil || ru.Scheme != u.Scheme || ru.Host != u.Host {
				t.Fatalf("the ID %q moved the URL from %q to %q", id, ref, got)
			}
			return
		}
		if !strings.HasPrefix(u.Host, p+"-"+id+".") || u.Path != "" || u.RawPath != "" {
			t.Fatalf("PortURL(%q, %q, %d) = %q: host %q does not start with %s-%s. or there is a path", id, sandboxDomain, port, got, u.Host, p, id)
		}
	})
}
