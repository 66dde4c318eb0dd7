//go:build linux

package process

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// timeoutRPC is a lease's renewal.
const timeoutRPC = `/sandboxes/[^/]+/timeout$`

// The API is cut while the command runs: the first renewals of the lease
// fail (the connection is reset), the ones a second later get through, and
// the job ends as it would have, its sandbox killed.
func TestRunRidesOutACutOfTheAPI(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	// A lease of 12 s: renewals from 4 s on, the two refused a second
	// apart, the third through some 6 s before the lease would run out.
	// The command ends once that renewal was answered.
	p.Add(faultproxy.Rule{Method: "POST", Path: timeoutRPC, Times: 2, Fault: faultproxy.Reset()})
	renewed := make(chan struct{})
	p.Add(faultproxy.Rule{Method: "POST", Path: timeoutRPC, Times: 1, Fault: faultproxy.Up(renewed)})
	s.goOnWhen(t, renewed)
	opts, out := s.runIn(t, `until [ -e "$HOME/go-on" ]; do sleep 0.1; done; echo done`)
	opts.Lease = 12 * time.Second
	opts.Request.Timeout = opts.Lease
	err := start(t, func() error { return runRun(t.Context(), opts) })()
	if err != nil {
		t.Fatalf("%v\n%s", err, out.ErrOut)
	}
	if got := out.Out.String(); got != "done\n" {
		t.Fatalf("stdout %q", got)
	}
	// Two refused and at least one renewal through, within the lease.
	if n := p.Count("POST", timeoutRPC); n < 3 {
		t.Fatalf("%d renewals tried: %v", n, p.Seen())
	}
	if strings.Contains(out.ErrOut.String(), "may be gone") {
		t.Fatalf("stderr %q", out.ErrOut)
	}
	f, _ := s.factory(t)
	left, err := f.Sandboxes.List(t.Context(), provider.ListOptions{})
	if err != nil || len(left) != 1 || left[0].SandboxID != s.id {
		t.Fatalf("sandboxes left: %v, %v", left, err)
	}
}

// runIn makes the options of 'abx run --template base --lease 30s -- line'
// against s's cluster.
func (s *sandbox) runIn(t *testing.T, line string) (*RunOptions, factorytest.Streams) {
	t.Helper()
	f, io := s.factory(t)
	return &RunOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes,
		Request: provider.CreateRequest{Template: "base", Timeout: sandboxes.MinLease}, Lease: sandboxes.MinLease,
		KeepFor: 5 * time.Minute, Argv: []string{line}, Signals: make(chan os.Signal)}, io
}

// No renewal gets through for the whole lease: abx stops the command
// rather than wait on a sandbox that may be gone, and says so (E5001, 125).
func TestRunStopsWhenTheLeaseIsLost(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	p.Add(faultproxy.Rule{Method: "POST", Path: timeoutRPC, Fault: faultproxy.Reset()})
	opts, out := s.runIn(t, "sleep 600")
	// A lease shorter than a new sandbox's lifetime, so that it runs out
	// in seconds: renewals set 3 s, and none gets through.
	opts.Lease = 3 * time.Second
	err := start(t, func() error { return runRun(t.Context(), opts) })()
	e := abxerr.From(err)
	if e.Code != abxerr.Network || !strings.Contains(e.Message, "lease could not be renewed for 3s") ||
		abxerr.Exit(err, true) != abxerr.ExitOwnFailure {
		t.Fatalf("error %v (exit %d)\n%s", err, abxerr.Exit(err, true), out.ErrOut)
	}
	if !strings.Contains(out.ErrOut.String(), "killed") {
		t.Fatalf("stderr %q says nothing of the sandbox's end", out.ErrOut)
	}
}

// A stop that comes while a result is being fetched bounds that fetch
// too: a sandbox that stopped answering holds abx sandboxes.EndBound at
// most.
func TestRunBoundsAFetchStoppedMidway(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	p.Add(faultproxy.Rule{Method: "GET", Path: `/files$`, Fault: faultproxy.Hold(10 * time.Minute)})
	opts, out := s.runIn(t, "echo result > /tmp/result")
	opts.Gets = []Copy{{Remote: "/tmp/result", Local: t.TempDir()}}
	signals := make(chan os.Signal, 1)
	opts.Signals = signals
	errc := make(chan error, 1)
	go func() { errc <- runRun(t.Context(), opts) }()
	for p.Count("GET", `/files$`) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	signals <- os.Interrupt
	var err error
	select {
	case err = <-errc:
	case <-time.After(sandboxes.EndBound + 10*time.Second):
		t.Fatalf("abx did not return within %s of the stop (the fetch is bound to %s)", sandboxes.EndBound+10*time.Second, sandboxes.EndBound)
	}
	if abxerr.From(err).Code != abxerr.Interrupted {
		t.Fatalf("error %v\n%s", err, out.ErrOut)
	}
	if !strings.Contains(out.ErrOut.String(), "could not get") || !strings.Contains(out.ErrOut.String(), "killed") {
		t.Fatalf("stderr %q: the fetch's end and the sandbox's", out.ErrOut)
	}
}
