package engine_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A sandbox's server cuts a stream the engine forwards, as a sandbox
// killed under it does: the client sees the cut, and nothing reaches Go's
// standard logger, which would write into the stderr of the program the
// engine wraps (TestMain fails the run if anything did).
func TestACutStreamLeavesNoRawLogLine(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	cut := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		select {
		case <-cut:
		case <-r.Context().Done():
		}
		panic(http.ErrAbortHandler) // the connection goes, mid-body
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	resp := fx.getPort(t, id, port, "/stream")
	defer func() { _ = resp.Body.Close() }()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(cut)
	rest, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Errorf("the cut body read whole (%d bytes more), want an error", len(rest))
	}
}
