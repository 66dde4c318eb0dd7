//go:build unix

package root

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/output"
)

func TestInterruptExits130(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		close(arrived)
		<-release
	}))
	defer ts.Close()
	defer close(release)
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = ts.URL

	io, _, _, errOut := output.Test(false)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel() // what Ctrl-C does to the root context
	}()
	code := make(chan int, 1)
	go func() { code <- Run(ctx, io, func(k string) string { return e[k] }, []string{"list"}) }()
	select {
	case c := <-code:
		if c != 130 || !strings.HasPrefix(errOut.String(), "error[E7001]: interrupted") {
			t.Errorf("exit %d, stderr %q", c, errOut.String())
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("abx did not stop when interrupted")
	}
}

// A process started with SIGINT ignored (a script's background job) catches
// it from the start: an ignored signal is dropped before anything could
// catch it, so one sent while the command got ready would be lost for good,
// and a command that runs until Ctrl-C would never end. One started with
// the default action catches it only once something waits, as before.
func TestACommandStartedWithCtrlCIgnoredCatchesItAtOnce(t *testing.T) {
	t.Parallel()
	for ignored, catching := range map[bool]bool{true: true, false: false} {
		ctx := newInterruptContext(context.Background())
		ctx.catchIfIgnored(func(os.Signal) bool { return ignored })
		if got := ctx.catcher.Load() != nil; got != catching {
			t.Errorf("SIGINT ignored at start %v: catching %v, want %v", ignored, got, catching)
		}
		ctx.stop()
	}
}
