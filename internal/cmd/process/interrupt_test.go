//go:build linux

package process

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/provider"
)

// Ctrl-C, --timeout and ps kill against the emulator's sandboxes, whose
// envd runs real processes: whatever stops a command stops every process
// of it, and abx comes back with the documented status.

// within bounds every wait of these tests: a hang guard, generous for a
// loaded machine under -race, never a measure of speed.
const within = 2 * time.Minute

// sandbox is one sandbox of a fresh emulator cluster (isolated as the
// emulator is, where this machine allows it).
type sandbox struct {
	env map[string]string
	id  string
	dir string // the gateway's: each sandbox's files are under dir/ID
}

func newSandbox(t testing.TB, envdVersion string) *sandbox {
	t.Helper()
	return newSandboxOn(t, manager.Options{EnvdVersion: envdVersion}, nil)
}

// newSandboxOn is newSandbox on a cluster with opts (its key and domain
// set here), the sandbox created with metadata md.
func newSandboxOn(t testing.TB, opts manager.Options, md map[string]string) *sandbox {
	t.Helper()
	envdVersion := opts.EnvdVersion
	opts.APIKey, opts.Domain, opts.KeepRequests = emutest.Key, "abx.test", true
	srv := manager.New(opts)
	dir := t.TempDir()
	gw := emulator.NewGateway(srv, dir, envdVersion)
	gw.Isolated = jail.Available() == nil
	ts := httptest.NewServer(gw)
	t.Cleanup(ts.Close)
	t.Cleanup(gw.Close)
	// The private protocol on the fake's own origin: no name to resolve.
	s := &sandbox{dir: dir, env: map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": ts.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  emutest.Key,
		"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
	}}
	f, _ := s.factory(t)
	p, err := f.Provider()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := p.Create(t.Context(), provider.CreateRequest{Template: "base", Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	s.id = sb.SandboxID
	return s
}

// waitFile waits (up to within) for a file the sandbox's command makes in
// its home: its way of saying it got somewhere.
func (s *sandbox) waitFile(t testing.TB, name string) {
	t.Helper()
	path := filepath.Join(s.dir, s.id, "home", "user", name)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear within %s", name, within)
}

func (s *sandbox) factory(t testing.TB) (*cmdutil.Factory, factorytest.Streams) {
	t.Helper()
	f, io := factorytest.NewFactory(false, s.env, "")
	return f, io
}

// exec makes the options of 'abx exec ID -- line'; Ctrl-C comes from
// cancelling the context run with, and sigs.
func (s *sandbox) exec(t testing.TB, line string, sigs chan os.Signal) (*ExecOptions, factorytest.Streams) {
	t.Helper()
	f, io := s.factory(t)
	return &ExecOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id, Argv: []string{line}, Signals: sigs}, io
}

// background runs 'abx exec ID --background -- line' (with -i when
// interactive) and returns the pid it printed.
func (s *sandbox) background(t *testing.T, line string, interactive bool) uint32 {
	t.Helper()
	opts, out := s.exec(t, line, nil)
	opts.Background, opts.Interactive = true, interactive
	if err := runExec(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	var pid uint32
	if _, err := fmt.Sscan(out.Out.String(), &pid); err != nil {
		t.Fatalf("pid %q: %v", out.Out, err)
	}
	return pid
}

// wantStopped waits until the sleeps marked are gone, and fails if the
// command printed its last word, "done": it went on after it was stopped.
func wantStopped(t *testing.T, out fmt.Stringer, marks ...string) {
	t.Helper()
	waitSleepers(t, 0, marks...)
	if strings.Contains(out.String(), "done") {
		t.Errorf("the command went on after it was stopped: stdout %q", out)
	}
}

// start runs fn in the background; the returned func waits (up to within)
// for its error.
func start(t *testing.T, fn func() error) func() error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- fn() }()
	return func() error {
		t.Helper()
		select {
		case err := <-errc:
			return err
		case <-time.After(within):
			t.Fatalf("abx did not return within %s", within)
		}
		return nil
	}
}

// sleepMark is a sleep's argument no other process of this machine has:
// sandbox processes share its process table, so a test finds its sleeps
// by it (an ended sleep, even a zombie, has no arguments left).
func sleepMark() string { return fmt.Sprintf("%d.%06d", 5000+rand.IntN(1000), rand.IntN(1000000)) }

// waitSleepers waits until n 'sleep MARK' are running, for each mark.
func waitSleepers(t *testing.T, n int, marks ...string) {
	t.Helper()
	for _, mark := range marks {
		waitSleeper(t, n, mark)
	}
}

func waitSleeper(t *testing.T, n int, mark string) {
	t.Helper()
	want := "sleep\x00" + mark + "\x00"
	count := func() int {
		paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		c := 0
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil && string(b) == want {
				c++
			}
		}
		return c
	}
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if count() == n {
			return
		}
	}
	t.Fatalf("%d 'sleep %s' running, want %d", count(), mark, n)
}

// wantInterrupted fails unless err is Ctrl-C's: E7001, exit 130.
func wantInterrupted(t *testing.T, err error) {
	t.Helper()
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Interrupted || abxerr.Exit(err, true) != abxerr.ExitInterrupted {
		t.Errorf("error %v, want E7001 (exit 130)", err)
	}
}

// One Ctrl-C stops every process of the command, on the clusters' envd
// and on a newer one (which starts processes through /bin/sh). A command
// that ignores SIGTERM is killed when the grace is over; a second Ctrl-C
// kills it at once.
func TestExecCtrlCStopsTheWholeCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, version, trap string
		second              bool
	}{
		{name: "envd 0.2.10", version: "0.2.10"},
		{name: "envd 0.6.13", version: "0.6.13"},
		{name: "TERM ignored", version: "0.2.10", trap: `trap "" TERM; `},
		{name: "TERM ignored, second Ctrl-C", version: "0.2.10", trap: `trap "" TERM; `, second: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, c.version)
			a, b := sleepMark(), sleepMark()
			sigs := make(chan os.Signal, 1)
			opts, io := s.exec(t, c.trap+"sleep "+a+" & sleep "+b+"; echo done", sigs)
			ctx, cancel := context.WithCancel(t.Context())
			wait := start(t, func() error { return runExec(ctx, opts) })
			waitSleepers(t, 1, a, b)
			cancel() // what the first Ctrl-C does to the root context
			if c.second {
				sigs <- os.Interrupt
			}
			err := wait()
			wantInterrupted(t, err)
			wantStopped(t, io.Out, a, b)
		})
	}
}

// --timeout: envd kills the process it started, and its group goes too.
func TestExecTimeoutStopsTheWholeCommand(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	a, b := sleepMark(), sleepMark()
	opts, io := s.exec(t, "sleep "+a+" & sleep "+b+"; echo done", make(chan os.Signal))
	opts.Timeout = 2 * time.Second
	wait := start(t, func() error { return runExec(t.Context(), opts) })
	err := wait()
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Timeout || abxerr.Exit(err, true) != abxerr.ExitTimeout {
		t.Errorf("error %v, want E6001 (exit 124)", err)
	}
	wantStopped(t, io.Out, a, b)
}

// exec -i with nothing on stdin: Ctrl-C is not held up by the read.
func TestExecInteractiveCtrlCWithStdinBlocked(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	a := sleepMark()
	opts, _ := s.exec(t, "sleep "+a+" & cat; echo done", make(chan os.Signal))
	opts.Interactive = true
	stdin, w := io.Pipe() // never written to
	defer func() { _ = w.Close() }()
	opts.IO.In = stdin
	ctx, cancel := context.WithCancel(t.Context())
	wait := start(t, func() error { return runExec(ctx, opts) })
	waitSleepers(t, 1, a)
	cancel()
	wantInterrupted(t, wait())
	waitSleepers(t, 0, a)
}

// ps stdin reading a stdin nobody writes to stops at Ctrl-C.
func TestPsStdinCtrlCWithStdinBlocked(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	a := sleepMark()
	pid := s.background(t, "sleep "+a+" & cat >/dev/null", true)
	waitSleepers(t, 1, a)

	f, _ := s.factory(t)
	stdin, w := io.Pipe()
	defer func() { _ = w.Close() }()
	f.IO.In = stdin
	ctx, cancel := context.WithCancel(t.Context())
	wait := start(t, func() error {
		return runPsStdin(ctx, &PsStdinOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id, PID: pid})
	})
	if _, err := w.Write([]byte("some input\n")); err != nil {
		t.Fatal(err) // read by now: the next read blocks
	}
	cancel()
	wantInterrupted(t, wait())

	if err := runPsKill(t.Context(), &PsKillOptions{Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id, PID: pid}); err != nil {
		t.Fatal(err)
	}
	waitSleepers(t, 0, a)
}

// ps shows the command as it was asked for, and ps kill's SIGTERM reaches
// every process of it.
func TestPsKillStopsTheWholeBackgroundCommand(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	a, b := sleepMark(), sleepMark()
	line := "sleep " + a + " & sleep " + b
	pid := s.background(t, line, false)
	waitSleepers(t, 1, a, b)

	f, io := s.factory(t)
	if err := runPs(t.Context(), &PsOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d\t-\t/bin/bash -l -c %s\t", pid, line)
	if !strings.Contains(io.Out.String(), want) {
		t.Errorf("ps printed %q, want a row %q", io.Out, want)
	}

	if err := runPsKill(t.Context(), &PsKillOptions{Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id, PID: pid}); err != nil {
		t.Fatal(err)
	}
	waitSleepers(t, 0, a, b)
}
