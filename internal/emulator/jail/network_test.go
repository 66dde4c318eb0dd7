//go:build linux

package jail_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// serveOnce starts, in the box, a server on 127.0.0.1:port that answers
// its first connection with greeting and ends, and returns once it
// listens.
func (b *box) serveOnce(t *testing.T, port int, greeting string) *spawn.Cmd {
	t.Helper()
	cmd := b.command(t, false, fmt.Sprintf(`exec python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", %d))
s.listen()
print("listening", flush=True)
c, _ = s.accept()
c.sendall(b"%s\n")
c.close()'`, port, greeting))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "listening\n" {
		t.Fatalf("the server in the box: %q, %v", line, err)
	}
	return cmd
}

// Boxes with networks of their own serve the same port side by side, each
// its own server; the emulator reaches each through its init; nothing in
// them reaches a server on this machine's loopback.
func TestBoxesWithNetworksOfTheirOwn(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the servers in the boxes are python3's")
	}
	own := func(s *jail.BoxSpec) { s.OwnNetwork = true }
	a, b := newBoxWith(t, true, own), newBoxWith(t, true, own)
	const port = 18765
	servers := []*spawn.Cmd{a.serveOnce(t, port, "box a"), b.serveOnce(t, port, "box b")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range []struct {
		b    *box
		want string
	}{{a, "box a\n"}, {b, "box b\n"}} {
		conn, err := c.b.b.Dial(ctx, port)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(conn)
		_ = conn.Close()
		if string(got) != c.want {
			t.Errorf("port %d of the box: %q, %v; want %q", port, got, err, c.want)
		}
	}
	for _, s := range servers {
		_ = s.Wait()
	}
	if _, err := a.b.Dial(ctx, port); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a port nothing listens on any more: %v, want connection refused", err)
	}

	// This machine's loopback is out of reach from inside.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	hostPort := ln.Addr().(*net.TCPAddr).Port
	out, code := a.run(t, false, fmt.Sprintf(`python3 -c '
import socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=5)
    print("reached")
except OSError as e:
    print(type(e).__name__)'`, hostPort))
	if code != 0 || out != "ConnectionRefusedError\n" {
		t.Errorf("a connection from the box to this machine's loopback: exit %d, %q", code, out)
	}
	out, code = a.run(t, false, `python3 -c 'import socket; print(socket.if_nameindex())'; ls /sys/class/net`)
	if code != 0 || out != "[(1, 'lo')]\nlo\n" {
		t.Errorf("the box's interfaces: exit %d, %q; want its loopback alone", code, out)
	}
}

// A box on this machine's network has nothing for the emulator to dial.
func TestABoxOnThisMachinesNetworkDialsNothing(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	if _, err := b.b.Dial(context.Background(), 18765); err == nil || !strings.Contains(err.Error(), "shares this machine's network") {
		t.Errorf("Dial: %v", err)
	}
}
