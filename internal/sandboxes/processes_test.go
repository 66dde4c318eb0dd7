package sandboxes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// reader is a provider whose Get answers as told.
type reader struct {
	fake
	sb    *provider.Sandbox
	err   error
	asked bool
}

func (r *reader) Get(context.Context, string) (*provider.Sandbox, error) {
	r.asked = true
	return r.sb, r.err
}

// A command that SIGKILL ended, or whose stream was lost, is explained by
// one read of its sandbox: gone or paused is the reason, which a bare 137
// or 502 would hide. Any other end reads nothing.
func TestAnEndIsExplainedByTheSandbox(t *testing.T) {
	t.Parallel()
	gone := func() *reader { return &reader{err: abxerr.New(abxerr.NotFound, "Sandbox route not found")} }
	paused := func() *reader { return &reader{sb: &provider.Sandbox{State: provider.StatePaused}} }
	running := func() *reader { return &reader{sb: &provider.Sandbox{State: "running"}} }
	killed := &remoteproc.Exit{Code: 137, Status: "signal: killed"}
	lost := fmt.Errorf("%w: the connection closed", remoteproc.ErrCut)
	for _, tc := range []struct {
		name    string
		p       *reader
		x       *remoteproc.Exit
		err     error
		ended   bool
		code    abxerr.Code
		unasked bool // the sandbox must not be read
	}{
		{"killed with its sandbox", gone(), killed, nil, true, "", false},
		{"killed in a running sandbox", running(), killed, nil, false, "", false},
		{"exited", gone(), &remoteproc.Exit{Code: 1}, nil, false, "", true},
		{"stream lost, sandbox gone", gone(), nil, lost, false, abxerr.NotFound, false},
		{"stream lost, sandbox paused", paused(), nil, lost, false, abxerr.Paused, false},
		{"stream lost, sandbox running", running(), nil, lost, false, "", false},
		{"another failure", gone(), nil, abxerr.New(abxerr.Unauthorized, "refused"), false, abxerr.Unauthorized, true},
	} {
		s := service(tc.p, 0, provider.SandboxLifecycle)
		ended, err := s.ended(t.Context(), "sb1", tc.x, tc.err)
		if ended != tc.ended {
			t.Errorf("%s: ended %v", tc.name, ended)
		}
		switch {
		case tc.code == "" && tc.err == nil && err != nil:
			t.Errorf("%s: error %v, want none", tc.name, err)
		case tc.code != "" && abxerr.From(err).Code != tc.code:
			t.Errorf("%s: error %v (%s), want %s", tc.name, err, abxerr.From(err).Code, tc.code)
		case tc.code == "" && tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%s: error %v, want it unchanged", tc.name, err)
		}
		if tc.code == abxerr.NotFound && abxerr.From(err).Next != abxerr.StepList {
			t.Errorf("%s: %v says no next step", tc.name, err)
		}
		if tc.unasked && tc.p.asked {
			t.Errorf("%s: the sandbox was read", tc.name)
		}
	}
}

// What a command, a process or a terminal is given is refused before
// anything is sent, in words that name the inputs as the door does.
func TestProcessInputIsRefusedBeforeAnyIO(t *testing.T) {
	t.Parallel()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.ExecRun, provider.ProcessManage, provider.PTY, provider.SandboxLifecycle, provider.FilesRW)
	cli := WithSpelling(t.Context(), Spelling{Quote: true,
		Names: map[string]string{"timeout": "--timeout", "user": "--user", "signal": "--signal", "pid": "PID", "cwd": "--cwd"},
		Shown: map[string]string{"timeout": "2d"}})
	agent := WithSpelling(t.Context(), Spelling{Names: map[string]string{"timeout": "timeout_seconds", "env": "envs"}})
	run := func(cmd Command) func(context.Context) error {
		return func(ctx context.Context) error { _, err := s.Exec(ctx, "sb", cmd, nil); return err }
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		do   func(context.Context) error
		want string
	}{
		{"empty command", cli, run(Command{Argv: []string{" "}}), "the command is empty"},
		{"empty program", agent, run(Command{Argv: []string{"", "x"}}), "the command is empty"},
		{"NUL in the command", agent, run(Command{Argv: []string{"true\x00rm -rf ~"}}), "invalid command: it holds NUL"},
		{"NUL in the cwd", cli, run(Command{Argv: []string{"ls"}, Cwd: "/tmp\x00x"}), `invalid --cwd "/tmp\x00x"`},
		{"a user with a colon", cli, run(Command{Argv: []string{"ls"}, User: "a:b"}), `invalid --user "a:b"`},
		{"a variable named with =", agent, run(Command{Argv: []string{"ls"}, Env: map[string]string{"A=B": "c"}}), "invalid envs name"},
		{"two days, as typed", cli, run(Command{Argv: []string{"ls"}, Timeout: 48 * time.Hour}), `invalid --timeout "2d": must be between 1s and 24h`},
		{"a day and a second, in seconds", agent, run(Command{Argv: []string{"ls"}, Timeout: 86401 * time.Second}), "invalid timeout_seconds 86401: must be between 1s and 24h"},
		{"a signal envd cannot send", cli, func(ctx context.Context) error { _, err := s.Signal(ctx, "sb", 42, "HUP"); return err }, `invalid --signal "HUP"`},
		{"pid 0 signalled", cli, func(ctx context.Context) error { _, err := s.Signal(ctx, "sb", 0, "TERM"); return err }, `invalid PID "0": must be between 1 and 4294967295`},
		{"pid 0 fed", cli, func(ctx context.Context) error {
			_, err := s.Stdin(ctx, "sb", 0, strings.NewReader("x"), false)
			return err
		}, `invalid PID "0"`},
		{"pid 0 followed", cli, func(ctx context.Context) error { _, err := s.Attach(ctx, "sb", 0, nil); return err }, `invalid PID "0"`},
		{"a terminal's user", cli, func(ctx context.Context) error {
			_, err := s.Terminal(ctx, "sb", "a\nb", &remoteproc.Terminal{})
			return err
		}, "invalid --user"},
	} {
		err := tc.do(tc.ctx)
		if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %v, want E1002 saying %q", tc.name, err, tc.want)
		}
	}
	if p.reads.Load() != 0 || len(p.log()) != 0 {
		t.Errorf("the provider heard %q and %d reads", p.log(), p.reads.Load())
	}
}

// A 0 typed where a bound excludes it is refused, saying what leaving it
// out means; a 0 not typed is the default.
func TestATypedZeroIsAValue(t *testing.T) {
	t.Parallel()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.ExecRun)
	typed := WithSpelling(t.Context(), Spelling{Quote: true, Names: map[string]string{"timeout": "--timeout"},
		Shown: map[string]string{"timeout": "0"}})
	_, err := s.Exec(typed, "sb", Command{Argv: []string{"ls"}}, nil)
	if e := abxerr.From(err); e.Message != `invalid --timeout "0": must be between 1s and 24h` ||
		e.Hint != "0 is no time: leave --timeout out for no limit" {
		t.Errorf("a typed 0: %v (%q)", err, e.Hint)
	}
	if err := Op("process.exec").Input("timeout").CheckSeconds(t.Context(), 0); err != nil {
		t.Errorf("a 0 not given: %v", err)
	}
}
