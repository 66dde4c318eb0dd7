package envd

import (
	"context"
	"net"
	"strconv"
)

// OwnNetwork tells whether the sandbox's ports are its own (its box's
// loopback) rather than this machine's.
func (s *Server) OwnNetwork() bool { return s.opts.Isolated && s.opts.OwnNetwork }

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
