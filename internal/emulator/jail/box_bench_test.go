//go:build linux

package jail_test

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
)

// BenchmarkBox is what a sandbox's box costs: its start (the view and the
// init), then its first command to its end, with and without a cgroup,
// and with a network of its own whose connections out are carried (what
// a sandbox with internet access gets).
func BenchmarkBox(b *testing.B) {
	for _, cg := range []struct {
		name  string
		on    bool
		carry bool
	}{{"cgroup", true, false}, {"no-cgroup", false, false}, {"carried", true, true}} {
		b.Run(cg.name, func(b *testing.B) {
			var start, first time.Duration
			for b.Loop() {
				t0 := time.Now()
				bx := newBoxWith(b, cg.on, func(s *jail.BoxSpec) { s.Carry = cg.carry })
				t1 := time.Now()
				cmd := bx.command(b, false, "true")
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				bx.b.Kill()
				start += t1.Sub(t0)
				first += t2.Sub(t1)
			}
			b.ReportMetric(float64(start.Microseconds())/float64(b.N)/1000, "ms-start/op")
			b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "ms-first/op")
		})
	}
}

// BenchmarkCommand is a further command of a running box, to its end:
// the init's fork of it in a user namespace of its own, and its exec.
func BenchmarkCommand(b *testing.B) {
	bx := newBoxWith(b, true)
	for b.Loop() {
		if err := bx.command(b, false, "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConnect is what the connect trap of a carried box costs each
// connect(2) a program makes, on the box's own loopback (a round trip to
// the emulator, which lets it go on), paired in each run with a box that
// has a network of its own and no trap: in each, one python3 process makes
// b.N connections and times them itself.
func BenchmarkConnect(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("the client is python3")
	}
	own := newBoxWith(b, true, func(s *jail.BoxSpec) { s.OwnNetwork = true })
	carried := newBoxWith(b, true, func(s *jail.BoxSpec) { s.Carry = true })
	connect := func(bx *box) float64 {
		out, code := bx.run(b, false, fmt.Sprintf(`python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128)
n = %d
t = time.perf_counter_ns()
for _ in range(n):
    c = socket.create_connection(s.getsockname()); s.accept()[0].close(); c.close()
print((time.perf_counter_ns() - t) // n)'`, b.N))
		ns, err := strconv.Atoi(strings.TrimSpace(out))
		if code != 0 || err != nil {
			b.Fatalf("exit %d: %q", code, out)
		}
		return float64(ns) / 1000
	}
	b.ResetTimer()
	b.ReportMetric(connect(own), "µs-connect-own-network")
	b.ReportMetric(connect(carried), "µs-connect-carried")
}

// BenchmarkCarried is a carried box's way out against this machine's
// own, paired: b.N connections to a host beyond the loopback, then 64 MiB
// sent to it over one, by the same python3 program in the box and on
// this machine, in one run. Once the emulator has put its socket in the
// program's place, the bytes go as the machine's do.
func BenchmarkCarried(b *testing.B) {
	if !inPythonNetwork(b) {
		return
	}
	port := serveTestHost(b, func(c net.Conn) { _, _ = io.Copy(io.Discard, c); _ = c.Close() })
	script := func(n int) string {
		return fmt.Sprintf(`python3 -c '
import socket, time
host, port, n = "%s", %d, %d
t = time.perf_counter_ns()
for _ in range(n):
    c = socket.create_connection((host, port)); c.close()
connect = (time.perf_counter_ns() - t) // n
buf = b"x" * (1 << 20)
c = socket.create_connection((host, port))
t = time.perf_counter_ns()
for _ in range(64):
    c.sendall(buf)
c.shutdown(socket.SHUT_WR); c.recv(1)
print(connect, (time.perf_counter_ns() - t) // 1000)'`, jailtest.TestHost, port, n)
	}
	parse := func(out string) (connect, mbps float64) {
		var c, send int
		if _, err := fmt.Sscan(out, &c, &send); err != nil {
			b.Fatalf("%q: %v", out, err)
		}
		return float64(c) / 1000, 64 * 1.048576 / (float64(send) / 1e6)
	}
	// One run holds both, the machine's first: paired, under the same
	// load, with the same ports in TIME_WAIT.
	bx := newBoxWith(b, true, func(s *jail.BoxSpec) { s.Carry = true })
	n := b.N
	b.ResetTimer()
	out, err := exec.Command("/bin/sh", "-c", script(n)).Output()
	if err != nil {
		b.Fatal(err)
	}
	mc, mt := parse(string(out))
	boxOut, code := bx.run(b, false, script(n))
	if code != 0 {
		b.Fatalf("exit %d: %s", code, boxOut)
	}
	bc, bt := parse(boxOut)
	b.ReportMetric(mc, "µs-connect-machine")
	b.ReportMetric(bc, "µs-connect-box")
	b.ReportMetric(mt, "MB/s-machine")
	b.ReportMetric(bt, "MB/s-box")
}
