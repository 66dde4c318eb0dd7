package envd

import (
	"net/netip"
	"testing"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// Egress rules read as sandbox-manager's: denyOut refuses, allowOut names
// what goes despite it (by CIDR, address or a domain resolved as the
// connection is made), and anything no rule names goes.
func TestEgressRulesReadAsTheManagers(t *testing.T) {
	t.Parallel()
	s := &Server{}
	at := func(a string) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr(a), 443) }
	for _, c := range []struct {
		name    string
		rules   *e2bapi.Network
		allowed []string
		denied  []string
	}{
		{"no rules", nil, []string{"10.0.0.1", "192.0.2.7"}, nil},
		{"allowOut alone restricts nothing", &e2bapi.Network{AllowOut: []string{"10.0.0.1"}}, []string{"10.0.0.1", "192.0.2.7"}, nil},
		{"denyOut of a CIDR and an address", &e2bapi.Network{DenyOut: []string{"10.0.0.0/8", "192.0.2.7"}},
			[]string{"11.0.0.1", "192.0.2.8"}, []string{"10.1.2.3", "192.0.2.7"}},
		{"an allowlist", &e2bapi.Network{DenyOut: []string{"0.0.0.0/0"}, AllowOut: []string{"10.0.0.0/24", "192.0.2.7"}},
			[]string{"10.0.0.9", "192.0.2.7"}, []string{"10.0.1.1", "8.8.8.8"}},
		{"a domain, resolved as the connection is made", &e2bapi.Network{DenyOut: []string{"127.0.0.0/8"}, AllowOut: []string{"localhost"}},
			[]string{"127.0.0.1"}, []string{"127.0.0.2"}},
		{"IPv6", &e2bapi.Network{DenyOut: []string{"2001:db8::/32"}, AllowOut: []string{"2001:db8::1"}},
			[]string{"2001:db8::1", "2001:db9::1"}, []string{"2001:db8::2"}},
	} {
		s.SetNetwork(c.rules)
		for _, a := range c.allowed {
			if err := s.egress(at(a)); err != nil {
				t.Errorf("%s: %s refused: %v", c.name, a, err)
			}
		}
		for _, a := range c.denied {
			if err := s.egress(at(a)); err == nil {
				t.Errorf("%s: %s let through", c.name, a)
			}
		}
	}
}
