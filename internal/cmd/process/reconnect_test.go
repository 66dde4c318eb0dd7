//go:build linux

package process

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// A proxy in front of the sandboxes cuts exec's and ps attach's streams
// while the command runs on, as the sandbox-manager's Envoy does after its
// 400 s route timeout: abx takes the stream up again and the command's own
// status still decides abx's; a process that ended meanwhile, or a sandbox
// that went away, fails with words about the cut (docs/exec.md, "When the
// stream is cut").

const (
	startRPC     = `process\.Process/Start$`
	connectRPC   = `process\.Process/Connect$`
	sendInputRPC = `process\.Process/SendInput$`
	// counting prints "line N" every 100 ms until the test lets it end (a
	// file go-on in its home, made once the stream that must see the end
	// is up), then "end", and exits 7: however slowly a busy machine
	// reattaches, the last stream sees the end.
	counting = `i=0; until [ -e "$HOME/go-on" ]; do i=$((i+1)); echo line $i; sleep 0.1; done; echo end; exit 7`
	// cutAt is how much of a stream the proxy passes before it cuts it:
	// the stream's first event and a few lines, whenever they come.
	cutAt = 120
)

// behind puts a fault proxy between abx and the sandbox's cluster.
func (s *sandbox) behind(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	base := s.env["ABX_ALICLOUD_CONTAINER_BASE_URL"]
	p := faultproxy.New(strings.TrimSuffix(base, "/kruise/api"))
	t.Cleanup(p.Close)
	env := map[string]string{}
	for k, v := range s.env {
		env[k] = v
	}
	env["ABX_ALICLOUD_CONTAINER_BASE_URL"] = p.URL + "/kruise/api"
	s.env = env
	return p
}

// execIn makes the options of 'abx exec ID -- line' in format.
func (s *sandbox) execIn(t *testing.T, format output.Format, line string) (*ExecOptions, factorytest.Streams) {
	t.Helper()
	f, io := factorytest.NewFactory(false, s.env, format)
	return &ExecOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id, Argv: []string{line},
		Signals: make(chan os.Signal)}, io
}

// wantStatus fails unless err passes the remote status n through.
func wantStatus(t *testing.T, err error, n int) {
	t.Helper()
	var st abxerr.Status
	if !errors.As(err, &st) || int(st) != n {
		t.Fatalf("error %v, want the remote status %d", err, n)
	}
}

// wantCounted checks the counting command's output across cuts: whole
// lines in order, none twice, up to its last word, "end", which came after
// the last cut (lines written during a gap may be missing).
func wantCounted(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[len(lines)-1] != "end" {
		t.Fatalf("output %q does not reach the end", out)
	}
	last := 0
	for _, l := range lines[:len(lines)-1] {
		n, err := strconv.Atoi(strings.TrimPrefix(l, "line "))
		if err != nil || n <= last {
			t.Fatalf("output %q: %q out of order", out, l)
		}
		last = n
	}
}

// endOnceUp lets the counting command end once the next stream of its
// output through p is up: the one that must see the end.
func (s *sandbox) endOnceUp(t *testing.T, p *faultproxy.Proxy) {
	t.Helper()
	up := make(chan struct{})
	p.Add(faultproxy.Rule{Path: connectRPC, Times: 1, Fault: faultproxy.Up(up)})
	s.goOnWhen(t, up)
}

// goOnWhen makes the file go-on in the home of each sandbox of s's
// cluster (a throwaway job's among them) once when is closed: the word a
// test's command waits for to go on.
func (s *sandbox) goOnWhen(t *testing.T, when <-chan struct{}) {
	t.Helper()
	go func() {
		select {
		case <-when:
			homes, err := filepath.Glob(filepath.Join(s.dir, "*", "home", "user"))
			if err == nil && len(homes) == 0 {
				err = errors.New("no sandbox has a home")
			}
			for _, home := range homes {
				if err == nil {
					err = os.WriteFile(filepath.Join(home, "go-on"), nil, 0o644)
				}
			}
			if err != nil {
				t.Errorf("letting the command go on: %v", err)
			}
		case <-t.Context().Done():
		}
	}()
}

func md5hex(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }

var reattached = regexp.MustCompile(`(?m)^abx: the stream of process \d+ was cut after \d+\.\ds \(.+\); reattached \d+\.\ds later: output written in between may be missing$`)

// cutTwice is a sandbox behind a proxy that cuts the counting command's
// first stream and the first reattached one once each carried a few
// lines, and lets the command end once the third is up.
func cutTwice(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	p.Add(faultproxy.Rule{Path: startRPC, Times: 1, Fault: faultproxy.Cut(cutAt)})
	p.Add(faultproxy.Rule{Path: connectRPC, Times: 1, Fault: faultproxy.Cut(cutAt)})
	s.endOnceUp(t, p)
	return s
}

// execCounting runs the counting command with 'abx exec' for people,
// through its cuts: abx exits with the command's 7, every line came, and
// stderr tells the reconnection. It returns stderr.
func (s *sandbox) execCounting(t *testing.T) string {
	t.Helper()
	opts, out := s.execIn(t, "", counting)
	err := start(t, func() error { return runExec(t.Context(), opts) })()
	wantStatus(t, err, 7)
	wantCounted(t, out.Out.String())
	if !reattached.MatchString(out.ErrOut.String()) {
		t.Errorf("stderr %q says nothing of a reconnection", out.ErrOut)
	}
	return out.ErrOut.String()
}

// exec's stream is cut twice while the command runs: its output goes on
// after each cut, and abx exits with the command's 7.
func TestExecStreamSurvivesCuts(t *testing.T) {
	t.Parallel()
	t.Run("people", func(t *testing.T) {
		t.Parallel()
		stderr := cutTwice(t).execCounting(t)
		if strings.Contains(stderr, "envelope") {
			t.Errorf("stderr %q", stderr)
		}
	})

	t.Run("programs", func(t *testing.T) {
		t.Parallel()
		s := cutTwice(t)
		opts, out := s.execIn(t, output.JSON, counting)
		err := start(t, func() error { return runExec(t.Context(), opts) })()
		wantStatus(t, err, 7)
		var stdout strings.Builder
		var reconnects, ends int
		var pid float64
		for _, l := range strings.Split(strings.TrimSpace(out.Out.String()), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			switch ev["type"] {
			case "start":
				if pid != 0 {
					t.Errorf("a second start event: %s", l)
				}
				pid = ev["pid"].(float64)
			case "stdout":
				stdout.WriteString(ev["data"].(string))
			case "reconnect":
				reconnects++
				for _, k := range []string{"type", "pid", "cutAfter", "gap", "attempts", "reason"} {
					if _, ok := ev[k]; !ok {
						t.Errorf("reconnect event %s lacks %q", l, k)
					}
				}
				if len(ev) != 6 || ev["pid"] != pid || ev["cutAfter"].(float64) <= 0 || ev["gap"].(float64) < 0 ||
					ev["attempts"].(float64) < 1 || ev["reason"] == "" {
					t.Errorf("reconnect event %s", l)
				}
			case "end":
				ends++
				if ev["exitCode"] != 7.0 || ev["status"] != "exit status 7" {
					t.Errorf("end event %s", l)
				}
			}
		}
		wantCounted(t, stdout.String())
		if reconnects == 0 || ends != 1 {
			t.Errorf("%d reconnect events, %d end events: %s", reconnects, ends, out.Out)
		}
		if out.ErrOut.Len() != 0 {
			t.Errorf("stderr %q", out.ErrOut)
		}
	})
}

// ps attach follows an interactive background command (whose output
// envd streams) across cuts, to its status.
func TestPsAttachInteractiveSurvivesCuts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	pid := s.backgroundShown(t, counting)
	p := s.behind(t)
	// Two cuts; the third stream sees the end.
	p.Add(faultproxy.Rule{Path: connectRPC, Times: 2, Fault: faultproxy.Cut(cutAt)})
	s.endOnceUp(t, p)
	f, out := factorytest.NewFactory(false, s.env, "")
	err := start(t, func() error {
		return runPsAttach(t.Context(), &PsAttachOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes, ID: s.id, PID: pid})
	})()
	wantStatus(t, err, 7)
	wantCounted(t, out.Out.String())
	if !reattached.MatchString(out.ErrOut.String()) {
		t.Errorf("stderr %q says nothing of a reconnection", out.ErrOut)
	}
}

// backgroundShown starts line in the background with its output on
// envd's stream, as a process someone else started through envd (abx's
// own --background discards it), and returns its pid.
func (s *sandbox) backgroundShown(t *testing.T, line string) uint32 {
	t.Helper()
	f, _ := s.factory(t)
	c, err := f.Sandboxes.Envd(t.Context(), s.id, "", provider.ProcessManage)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var pid uint32
	_, err = c.Start(ctx, envd.Command{Cmd: "/bin/bash", Args: []string{"-c", "exec </dev/null; " + line}}, func(ev envd.Event) error {
		if ev.Started != nil {
			pid = *ev.Started
			return io.EOF
		}
		return nil
	})
	if pid == 0 {
		t.Fatalf("start: %v", err)
	}
	return pid
}

// The process ends while abx cannot reattach: abx says the status is
// unknown (E5006, exit 125), or the status Connect still reported; it
// never makes one up.
func TestExecProcessEndsDuringTheCut(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	p.Add(faultproxy.Rule{Path: startRPC, Fault: faultproxy.CutAfter(time.Second)})
	p.Add(faultproxy.Rule{Path: connectRPC, Times: 3, Fault: faultproxy.Status(http.StatusServiceUnavailable, "upstream connect error")})
	opts, out := s.execIn(t, "", "echo started; sleep 1.5; exit 3")
	err := start(t, func() error { return runExec(t.Context(), opts) })()
	var st abxerr.Status
	if errors.As(err, &st) {
		if st != 3 {
			t.Fatalf("status %d, want the command's 3 or none", st)
		}
		return
	}
	e := abxerr.From(err)
	if e.Code != abxerr.StatusUnknown || abxerr.Exit(err, true) != abxerr.ExitOwnFailure {
		t.Fatalf("error %v (%s), want E5006, exit 125", err, e.Code)
	}
	if !regexp.MustCompile(`^the stream of process \d+ was cut after \d+\.\ds \(.+\), and the process ended before abx could reattach: how it ended is unknown$`).MatchString(e.Message) {
		t.Errorf("message %q", e.Message)
	}
	if !strings.Contains(e.Hint, "abx ps "+s.id) {
		t.Errorf("hint %q", e.Hint)
	}
	if out.Out.String() != "started\n" {
		t.Errorf("stdout %q", out.Out)
	}
}

// The sandbox is killed during the cut: the gateway answers 502, and abx
// fails at once saying the sandbox ended (exit 125).
func TestExecSandboxGoneDuringTheCut(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	f, _ := s.factory(t)
	pr, err := f.Provider()
	if err != nil {
		t.Fatal(err)
	}
	p.Add(faultproxy.Rule{Path: startRPC, Fault: faultproxy.CutAfter(time.Second)})
	p.Add(faultproxy.Rule{Path: connectRPC, Times: 1, Fault: faultproxy.Func(func(w http.ResponseWriter, r *http.Request, up http.Handler) {
		if err := pr.Kill(r.Context(), s.id); err != nil {
			t.Errorf("kill: %v", err)
		}
		up.ServeHTTP(w, r)
	})})
	opts, _ := s.execIn(t, "", "while :; do echo tick; sleep 0.2; done")
	err = start(t, func() error { return runExec(t.Context(), opts) })()
	// The stream could not be taken up again, and the one read of the
	// sandbox says why: it is gone.
	e := abxerr.From(err)
	if e.Code != abxerr.NotFound || abxerr.Exit(err, true) != abxerr.ExitOwnFailure ||
		e.Message != "sandbox "+s.id+" ended while the command ran (killed, or its timeout passed): how the command ended is unknown" {
		t.Fatalf("error %v (%s), want the sandbox's end, exit 125", err, e.Code)
	}
	if n := p.Count("", connectRPC); n != 1 {
		t.Errorf("%d Connect calls after the 502, want 1", n)
	}
}

// exec -i across a cut: what abx read from its stdin reaches the command
// once, in order, however the output stream fares.
func TestExecInteractiveStdinAcrossCuts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	p.Add(faultproxy.Rule{Path: startRPC, Fault: faultproxy.CutAfter(1500 * time.Millisecond)})
	p.Add(faultproxy.Rule{Path: connectRPC, Times: 1, Fault: faultproxy.CutAfter(1500 * time.Millisecond)})
	const chunks, size = 30, 100
	opts, out := s.execIn(t, "", fmt.Sprintf("head -c %d > in; echo; md5sum < in; exit 5", chunks*size))
	opts.Interactive = true
	stdin, w := io.Pipe()
	opts.IO.In = stdin
	var sent strings.Builder
	go func() {
		for i := range chunks {
			chunk := fmt.Sprintf("%0*d\n", size-1, i)
			sent.WriteString(chunk)
			if _, err := w.Write([]byte(chunk)); err != nil {
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
		_ = w.Close()
	}()
	ctx, cancel := context.WithTimeout(t.Context(), within/2)
	defer cancel()
	err := start(t, func() error { return runExec(ctx, opts) })()
	if ctx.Err() != nil {
		t.Fatalf("no end within %s: stdout %q, stderr %q", within/2, out.Out, out.ErrOut)
	}
	wantStatus(t, err, 5)
	want := md5hex(sent.String())
	if !strings.Contains(out.Out.String(), want) {
		t.Errorf("stdout %q, want the md5 of what was sent, %s", out.Out, want)
	}
	if !reattached.MatchString(out.ErrOut.String()) {
		t.Errorf("stderr %q says nothing of a reconnection", out.ErrOut)
	}
}

// Ctrl-C while abx tries to reattach stops the command and abx, as it
// does on an unbroken stream.
func TestExecCtrlCDuringReconnect(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	p.Add(faultproxy.Rule{Path: startRPC, Fault: faultproxy.CutAfter(time.Second)})
	p.Add(faultproxy.Rule{Path: connectRPC, Fault: faultproxy.Status(http.StatusServiceUnavailable, "upstream connect error")})
	a := sleepMark()
	opts, out := s.execIn(t, "", "echo started; sleep "+a+"; echo done")
	ctx, cancel := context.WithCancel(t.Context())
	wait := start(t, func() error { return runExec(ctx, opts) })
	for deadline := time.Now().Add(within); p.Count("", connectRPC) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("abx did not try to reattach")
		}
	}
	cancel()
	wantInterrupted(t, wait())
	wantStopped(t, out.Out, a)
}

// A stream that no attempt takes up again within the window (the idle
// bound, 4 s here) fails with the cut, the last failure's code and how
// to look at the process, which still runs.
func TestExecGivesUpAfterTheWindow(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	s.env["ABX_ALICLOUD_CONTAINER_IDLE_TIMEOUT"] = "4s"
	p.Add(faultproxy.Rule{Path: startRPC, Fault: faultproxy.CutAfter(time.Second)})
	p.Add(faultproxy.Rule{Path: connectRPC, Fault: faultproxy.Status(http.StatusServiceUnavailable, "upstream connect error")})
	a := sleepMark()
	opts, _ := s.execIn(t, "", "echo started; sleep "+a)
	err := start(t, func() error { return runExec(t.Context(), opts) })()
	e := abxerr.From(err)
	if !errors.Is(err, remoteproc.ErrCut) || e.Code != abxerr.Network || abxerr.Exit(err, true) != abxerr.ExitOwnFailure {
		t.Fatalf("error %v (%s), want a cut stream, E5001, exit 125", err, e.Code)
	}
	if !regexp.MustCompile(`^the stream of process \d+ was cut after \d+\.\ds \(.+\), and abx could not reattach: no stream within 4\.\ds: `).MatchString(e.Message) {
		t.Errorf("message %q", e.Message)
	}
	if n := p.Count("", connectRPC); n < 3 || n > 20 {
		t.Errorf("%d attempts in 4 s, want a backoff", n)
	}
	waitSleepers(t, 1, a) // left running, as the hint says
}

// A piece of stdin that the network lost (the connection broke under a
// SendInput) stops the command, SIGKILL after the grace included, and
// says so: the command must not wait for the rest, nor take what came for
// all of it.
func TestExecInteractiveStdinLostOnTheWay(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"0.2.10", "0.6.13"} {
		t.Run("envd "+version, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, version)
			p := s.behind(t)
			// The first piece passes, the second is lost.
			p.Add(faultproxy.Rule{Path: sendInputRPC, Times: 1, Fault: func(w http.ResponseWriter, r *http.Request, up http.Handler) { up.ServeHTTP(w, r) }})
			p.Add(faultproxy.Rule{Path: sendInputRPC, Times: 1, Fault: faultproxy.Reset()})
			a := sleepMark()
			opts, out := s.execIn(t, "", `trap "" TERM; head -c 5 >first; touch read-first; wc -c; sleep `+a+`; echo done`)
			opts.Interactive = true
			stdin, w := io.Pipe()
			defer func() { _ = w.Close() }()
			opts.IO.In = stdin
			wait := start(t, func() error { return runExec(t.Context(), opts) })
			if _, err := w.Write([]byte("first")); err != nil {
				t.Fatal(err)
			}
			s.waitFile(t, "read-first") // TERM is ignored from now on
			_, _ = w.Write([]byte("more input"))
			err := wait()
			if e := abxerr.From(err); e == nil || e.Code != abxerr.Network || !strings.Contains(e.Message, "could not be sent to the command whole") {
				t.Errorf("error %v, want E5001 saying the input did not arrive whole", err)
			}
			if code := statusOf(err); code != 125 {
				t.Errorf("exit %d, want 125", code)
			}
			wantStopped(t, out.Out, a)
		})
	}
}

// A stream cut once the traffic token it started with has expired is
// attached again with a new one: the sandbox is guarded, its tokens live
// 2 s, and the cut comes after 3 s (the one wait here is the expiry
// itself, the subject of the test). The command's status is abx's.
func TestAStreamOutlivesItsTrafficToken(t *testing.T) {
	t.Parallel()
	s := newSandboxOn(t, manager.Options{EnvdVersion: "0.2.10", TrafficTokenValidity: 2 * time.Second},
		map[string]string{e2bapi.TrafficAuthKey: "true"})
	p := s.behind(t)
	cut := make(chan struct{})
	p.Add(faultproxy.Rule{Path: startRPC, Times: 1, Fault: faultproxy.CutWhen(cut)})
	s.endOnceUp(t, p)
	time.AfterFunc(3*time.Second, func() { close(cut) })
	s.execCounting(t)
	refreshes := p.Count("POST", `/traffic-access-token$`)
	if refreshes < 2 {
		t.Errorf("%d refreshes: want one for the start and one for the reattach", refreshes)
	}
}
