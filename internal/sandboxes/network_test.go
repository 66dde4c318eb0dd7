package sandboxes

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Egress rules at create: a provider that cannot apply them is not asked
// to create at all (E8004), since a lockdown asked for and not applied is
// worse than none; rules the manager would refuse are E1002 in its
// words, and nothing is sent.
func TestEgressRulesAtCreate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		caps  []provider.Capability
		rules provider.Network
		code  abxerr.Code
		words string
	}{
		{"no capability", []provider.Capability{provider.SandboxLifecycle}, provider.Network{DenyOut: []string{"0.0.0.0/0"}},
			abxerr.Unsupported, "network.egress"},
		{"a domain in denyOut", []provider.Capability{provider.SandboxLifecycle, provider.NetworkEgress},
			provider.Network{DenyOut: []string{"example.com"}}, abxerr.InvalidInput, "domains are not supported in denyOut"},
		{"a wildcard", []provider.Capability{provider.SandboxLifecycle, provider.NetworkEgress},
			provider.Network{AllowOut: []string{"*.example.com"}}, abxerr.InvalidInput, "wildcard domains are not supported"},
		{"101 entries", []provider.Capability{provider.SandboxLifecycle, provider.NetworkEgress},
			provider.Network{DenyOut: strings.Fields(strings.Repeat("10.0.0.1 ", 101))}, abxerr.InvalidInput, "exceeds maximum of 100"},
	} {
		p := &fake{}
		s := service(p, 0, tc.caps...)
		_, err := s.Create(t.Context(), provider.CreateRequest{Template: "base", Network: &tc.rules})
		if e := abxerr.From(err); e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.words) {
			t.Errorf("%s: %v, want %s saying %q", tc.name, err, tc.code, tc.words)
		}
		if len(p.log()) != 0 {
			t.Errorf("%s: the provider heard %v", tc.name, p.log())
		}
	}
	p := &fake{}
	s := service(p, 0, provider.SandboxLifecycle, provider.NetworkEgress)
	ok := provider.Network{AllowOut: []string{"10.0.0.0/8", "pypi.org", "1.2.3.4"}, DenyOut: []string{"0.0.0.0/0", "::/0"}}
	if _, err := s.Create(t.Context(), provider.CreateRequest{Template: "base", Network: &ok}); err != nil {
		t.Errorf("rules the manager takes: %v", err)
	}
}
