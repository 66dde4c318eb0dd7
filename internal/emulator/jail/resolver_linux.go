//go:build linux

package jail

import (
	"bytes"
	"net"
	"net/netip"
	"os"
	"time"
)

// A box whose connections out are carried resolves names with this
// machine's resolvers: the init binds a UDP socket at port 53 of each
// resolver's address, in the box's network, and hands it over; the relay
// sends what comes to it to the resolver, from this machine's network,
// and the answer back. (A resolver's TCP is carried as any connection,
// outside the egress rules: a name must resolve for allowOut to hold.)

// relayWait bounds one query's answer; relayInFlight bounds the queries a
// box has waiting at once (resolvers retry what goes unanswered).
const (
	relayWait     = 5 * time.Second
	relayInFlight = 32
)

// startRelay serves the box's socket f until it is closed; nil where f is
// not a resolver's socket.
func startRelay(f *os.File) net.PacketConn {
	pc, err := net.FilePacketConn(f)
	_ = f.Close()
	if err != nil {
		return nil
	}
	at, ok := pc.LocalAddr().(*net.UDPAddr)
	if !ok {
		_ = pc.Close()
		return nil
	}
	resolver := netip.AddrPortFrom(at.AddrPort().Addr().Unmap(), 53)
	go relay(pc, resolver)
	return pc
}

func relay(pc net.PacketConn, resolver netip.AddrPort) {
	sem := make(chan struct{}, relayInFlight)
	// A query is a question: small (an answer may not be, and gets a
	// buffer of its own while it is read).
	buf := make([]byte, 4<<10)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		select {
		case sem <- struct{}{}:
		default:
			continue // dropped: the asker asks again
		}
		q := bytes.Clone(buf[:n])
		go func() {
			defer func() { <-sem }()
			if answer := ask(resolver, q); answer != nil {
				_, _ = pc.WriteTo(answer, from)
			}
		}()
	}
}

// ask sends one query to the resolver and reads its answer.
func ask(resolver netip.AddrPort, q []byte) []byte {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(resolver))
	if err != nil {
		return nil
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(relayWait))
	if _, err := c.Write(q); err != nil {
		return nil
	}
	buf := make([]byte, 64<<10)
	n, err := c.Read(buf)
	if err != nil {
		return nil
	}
	return buf[:n]
}
