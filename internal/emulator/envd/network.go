package envd

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// OwnNetwork tells whether the sandbox's ports are its own (its box's
// loopback) rather than this machine's: an isolated sandbox's are.
func (s *Server) OwnNetwork() bool { return s.opts.Isolated }

// DialPort connects to a port a process of the sandbox serves: through
// its box when the sandbox has a network of its own (booting the box if
// it has not booted yet), else on this machine's loopback, which the
// sandbox shares.
func (s *Server) DialPort(ctx context.Context, port int) (net.Conn, error) {
	if !s.OwnNetwork() {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}
	b, err := s.box()
	if err != nil {
		return nil, err
	}
	return b.Dial(ctx, port)
}

// SetNetwork replaces the sandbox's egress rules (nil clears them): the
// connections it makes from then on follow them; one made before goes on,
// as an established flow does through a firewall.
func (s *Server) SetNetwork(n *e2bapi.Network) { s.rules.Store(n) }

// errDenied is a connection out that the sandbox's rules refuse: the
// program sees EPERM, a firewall rule's error.
var errDenied = errors.New("denied by the sandbox's egress rules")

// lookupWait bounds the resolution of an allowOut domain.
const lookupWait = 2 * time.Second

// egress decides a connection out of the sandbox as sandbox-manager's
// rules read (docs/protocol.md, "Egress rules"): a destination in denyOut
// (a CIDR or an address) is refused unless allowOut names it, by CIDR, by
// address, or by a domain that resolves to it as the connection is made;
// anything else goes.
func (s *Server) egress(dst netip.AddrPort) error {
	n := s.rules.Load()
	if n == nil || !matches(n.DenyOut, dst.Addr()) {
		return nil
	}
	if matches(n.AllowOut, dst.Addr()) {
		return nil
	}
	for _, e := range n.AllowOut {
		if isAddrRule(e) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), lookupWait)
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", e)
		cancel()
		if err == nil && slices.ContainsFunc(addrs, func(a netip.Addr) bool { return a.Unmap() == dst.Addr() }) {
			return nil
		}
	}
	return errDenied
}

// matches tells whether a is in one of the rules' CIDRs or is one of
// their addresses (domains are not matched here).
func matches(rules []string, a netip.Addr) bool {
	for _, e := range rules {
		if p, err := netip.ParsePrefix(e); err == nil && p.Masked().Contains(a) {
			return true
		}
		if r, err := netip.ParseAddr(e); err == nil && r.Unmap() == a {
			return true
		}
	}
	return false
}

func isAddrRule(e string) bool {
	if _, err := netip.ParsePrefix(e); err == nil {
		return true
	}
	_, err := netip.ParseAddr(e)
	return err == nil
}
