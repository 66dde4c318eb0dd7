//go:build unix

package jupyter

import (
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// The code interpreter asks no token, so any client of the gateway may
// send it a body: one that stops coming is cut once no byte came for the
// idle bound, and its connection closed, rather than held for ever.
func TestAStalledBodyIsCut(t *testing.T) {
	t.Parallel()
	s := New(Options{BodyIdle: 100 * time.Millisecond})
	t.Cleanup(s.Close)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	for _, path := range []string{"/execute", "/contexts"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"code\":")
		// Far above the bound: only a read with no deadline lasts that long.
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		answer, err := io.ReadAll(conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("POST %s: a stalled body held the connection (%q)", path, answer)
		} else if err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("POST %s: %v", path, err)
		}
		_ = conn.Close()
	}
}
