//go:build linux

package jail_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
)

// A box whose connections out are carried reaches a host beyond this
// machine's loopback, from any of its threads, where its rules let it: its
// socket is then one of this machine's, with the options set before the
// connect, blocking or not and inherited by what it execs or not, as the
// program's was, and a program that polls its connection with further
// connects sees it made (EALREADY, then EISCONN). A refused destination
// is EPERM, and nothing of this machine's loopback is in reach.
func TestCarriedBoxesReachWhatTheirRulesAllow(t *testing.T) {
	if !inPythonNetwork(t) {
		return
	}
	port := serveTestHost(t, func(c net.Conn) {
		_, _ = fmt.Fprintf(c, "hello from %s\n", c.RemoteAddr().(*net.TCPAddr).IP)
		_ = c.Close()
	})
	local, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = local.Close() }()
	free, err := net.Listen("tcp", netip.AddrPortFrom(jailtest.TestHost, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	closedPort := free.Addr().(*net.TCPAddr).Port
	_ = free.Close() // a port of the host where nothing listens
	refuse := errors.New("denied")
	open := newBoxWith(t, true, func(s *jail.BoxSpec) { s.Carry = true })
	closed := newBoxOut(t, true, func(dst netip.AddrPort) error {
		if dst.Addr() == jailtest.TestHost {
			return refuse
		}
		return nil
	}, func(s *jail.BoxSpec) { s.Carry = true })
	client := fmt.Sprintf(`python3 -c '
import socket, sys, select, errno, fcntl, os, threading
def blocking(host, port):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(None)
    try:
        s.connect((host, port))
    except OSError as e:
        return errno.errorcode[e.errno]
    nodelay = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    blocking = fcntl.fcntl(s.fileno(), fcntl.F_GETFL) & os.O_NONBLOCK == 0
    return s.makefile().readline().strip() + " nodelay=%%d blocking=%%s inheritable=%%s" %% (nodelay, blocking, s.get_inheritable())
def nonblocking(host, port):
    s = socket.socket()
    s.setblocking(False)
    s.set_inheritable(True)
    r = s.connect_ex((host, port))
    if r not in (0, errno.EINPROGRESS):
        return errno.errorcode[r]
    select.select([], [s], [], 10)
    r = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if r:
        return errno.errorcode[r]
    flags = "blocking=%%s inheritable=%%s" %% (fcntl.fcntl(s.fileno(), fcntl.F_GETFL) & os.O_NONBLOCK == 0, s.get_inheritable())
    s.setblocking(True)
    return s.makefile().readline().strip() + " " + flags
print(blocking("%[1]s", %[2]d))
print(nonblocking("%[1]s", %[2]d))
def polling(host, port):
    s = socket.socket()
    s.setblocking(False)
    for _ in range(500):
        r = s.connect_ex((host, port))
        if r in (0, errno.EISCONN):
            s.setblocking(True)
            return s.makefile().readline().strip() + " by polling"
        if r not in (errno.EINPROGRESS, errno.EALREADY):
            return errno.errorcode[r]
        select.select([], [s], [], 0.01)
    return "never connected"
print(polling("%[1]s", %[2]d))
got = []
t = threading.Thread(target=lambda: got.append(blocking("%[1]s", %[2]d)))
t.start(); t.join()
print("from a thread:", got[0])
print(blocking("127.0.0.1", %[3]d))
print(blocking("%[1]s", %[4]d), nonblocking("%[1]s", %[4]d))
'`, jailtest.TestHost, port, local.Addr().(*net.TCPAddr).Port, closedPort)
	out, code := open.run(t, false, client)
	hello := "hello from " + jailtest.TestHost.String()
	want := hello + " nodelay=1 blocking=True inheritable=False\n" + hello + " blocking=False inheritable=True\n" +
		hello + " by polling\nfrom a thread: " + hello + " nodelay=1 blocking=True inheritable=False\nECONNREFUSED\nECONNREFUSED ECONNREFUSED\n"
	if code != 0 || out != want {
		t.Errorf("a box whose rules allow the host: exit %d\n%s\nwant\n%s", code, out, want)
	}
	out, code = closed.run(t, false, client)
	if want := "EPERM\nEPERM\nEPERM\nfrom a thread: EPERM\nECONNREFUSED\nEPERM EPERM\n"; code != 0 || out != want {
		t.Errorf("a box whose rules deny the host: exit %d\n%s\nwant\n%s", code, out, want)
	}
	// What the box serves on its own loopback stays in reach of itself.
	out, code = open.run(t, false, `python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname())
print("own loopback", s.accept()[1][0])'`)
	if code != 0 || out != "own loopback 127.0.0.1\n" {
		t.Errorf("the box's own loopback: exit %d, %q", code, out)
	}
}

// A carried box's resolvers are relayed: a query to a resolver's port 53
// gets the resolver's answer, sent on a connected socket (glibc's) or
// not (musl's); UDP to anywhere else goes nowhere.
func TestACarriedBoxsResolversAreRelayed(t *testing.T) {
	if !inPythonNetwork(t) {
		return
	}
	pc, err := net.ListenPacket("udp", netip.AddrPortFrom(jailtest.TestHost, 53).String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pc.Close() }()
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo(append([]byte("answer to "), buf[:n]...), from)
		}
	}()
	b := newBoxOut(t, true, func(netip.AddrPort) error { return errors.New("nothing goes out") }, func(s *jail.BoxSpec) {
		s.Carry, s.Resolvers = true, [][]byte{jailtest.TestHost.AsSlice()}
	})
	out, code := b.run(t, false, fmt.Sprintf(`python3 -c '
import socket, errno
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(10)
s.connect(("%[1]s", 53))
s.send(b"query")
print(s.recv(100).decode())
m = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
m.settimeout(10)
m.sendto(b"unconnected", ("%[1]s", 53))
print(m.recvfrom(100)[0].decode())
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("10.99.0.2", 9))
    print("sent")
except OSError as e:
    print(errno.errorcode[e.errno])
'`, jailtest.TestHost))
	if want := "answer to query\nanswer to unconnected\nENETUNREACH\n"; code != 0 || out != want {
		t.Errorf("the box's resolver: exit %d\n%s\nwant\n%s", code, out, want)
	}
}

// A program that gives up a connection the carrier is still making for it
// (a signal ends its wait) gets its error at once, and the carrier lets
// the connection go: nothing of it is left in the emulator.
func TestACarriedConnectGivenUpLeavesNothing(t *testing.T) {
	b := carriedBox(t)
	if b == nil {
		return
	}
	before := openSockets(t)
	start := time.Now()
	out, code := b.run(t, false, fmt.Sprintf(`python3 -c '
import socket, signal
class GaveUp(Exception): pass
def up(*_): raise GaveUp()
signal.signal(signal.SIGALRM, up)
signal.alarm(1)
try:
    socket.create_connection(("%s", 80))
    print("connected")
except GaveUp:
    print("gave up")
'`, jailtest.SilentHost))
	if code != 0 || out != "gave up\n" || time.Since(start) > 20*time.Second {
		t.Fatalf("a connect given up: exit %d, %q after %s", code, out, time.Since(start))
	}
	waitFor(t, "the carrier's socket closed", 10*time.Second, func() bool { return openSockets(t) <= before })
}

// inPythonNetwork is jailtest.InTestNetwork for a test or benchmark whose
// clients are python3's: it skips where there is none.
func inPythonNetwork(tb testing.TB) bool {
	tb.Helper()
	if !jailtest.InTestNetwork(tb) {
		return false
	}
	if _, err := exec.LookPath("python3"); err != nil {
		tb.Skip("the clients in the boxes are python3's")
	}
	return true
}

// carriedBox is a carried box for a test whose client in it is python3,
// in a network of the test's own; nil in the test binary as started,
// whose copy ran the test: the caller returns.
func carriedBox(t *testing.T) *box {
	t.Helper()
	if !inPythonNetwork(t) {
		return nil
	}
	return newBoxWith(t, true, func(s *jail.BoxSpec) { s.Carry = true })
}

// serveTestHost serves each connection to a port of the test host with
// handle, until the test ends, and returns the port.
func serveTestHost(tb testing.TB, handle func(net.Conn)) int {
	tb.Helper()
	ln, err := net.Listen("tcp", netip.AddrPortFrom(jailtest.TestHost, 0).String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// openSockets counts this process's open sockets: what the carrier holds
// for a box's connections (an init waiting for a box holds pipes).
func openSockets(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

// The connections the emulator makes for a box at once are bounded: a box
// that waits in more connects than that, from as many threads, holds no
// more of the emulator's descriptors, and gives them back when it ends.
func TestACarriedBoxHoldsABoundedShareOfTheEmulator(t *testing.T) {
	b := carriedBox(t)
	if b == nil {
		return
	}
	before := openSockets(t)
	cmd := b.command(t, false, fmt.Sprintf(`exec python3 -c '
import socket, threading, time
def wait():
    try:
        socket.create_connection(("%s", 80))
    except OSError:
        pass
for _ in range(400):
    threading.Thread(target=wait, daemon=True).start()
print("waiting", flush=True)
time.sleep(600)'`, jailtest.SilentHost))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "waiting\n" {
		t.Fatalf("the box's program: %q, %v", line, err)
	}
	waitFor(t, "the emulator making the box's connections", 10*time.Second, func() bool { return openSockets(t) >= before+200 })
	time.Sleep(500 * time.Millisecond) // what more it would take, it has taken by now
	if held := openSockets(t) - before; held > 256+8 {
		t.Errorf("the emulator holds %d descriptors for 400 connects of one box, want at most 256 and a few", held)
	}
	b.b.Kill()
	waitFor(t, "the descriptors given back", 10*time.Second, func() bool { return openSockets(t) <= before+2 })
}
