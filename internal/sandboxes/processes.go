package sandboxes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/shell"
)

// The processes of a sandbox: a command run (Exec), the processes listed
// (Processes), signalled (Signal), fed (Stdin), followed (Attach), and a
// terminal session (Terminal). remoteproc does the work below them on the
// envd client each gets here.

// Command is a command to run in a sandbox, as bash's login shell runs it
// (remoteproc).
type Command struct {
	// Argv is one shell line, or an argv whose arguments are each quoted.
	Argv []string
	Cwd  string // "": the user's home
	User string // "": envd's default user
	Env  map[string]string
	// Timeout bounds the command (a process's bound: 1 s to 24 h); 0:
	// none.
	Timeout time.Duration
	// Interactive keeps the command's stdin open: Stdin is streamed to it,
	// its end included (in the background, it waits for Stdin's calls).
	Interactive bool
	Stdin       io.Reader
	// Signals delivers Ctrl-C (remoteproc.Spec); nil: abx's own SIGINT.
	// A terminal's session ends at the first one.
	Signals <-chan os.Signal
	// Background starts the command and returns its PID at once; its
	// output is discarded.
	Background bool
	// Terminal, when set, runs the command on a PTY: the door's keys,
	// screen, size and detach keys (its Spec is made here).
	Terminal *remoteproc.Terminal
}

// Execution is how a command went.
type Execution struct {
	// Exit is how it ended: nil for one left in the background, or one
	// whose end abx did not see.
	Exit *remoteproc.Exit
	// PID is a background command's.
	PID uint32
	// EndlessStdin says that a background command was given its stdin on
	// an envd (of version Envd) that cannot close it: it reads what Stdin
	// sends, never the end of it.
	EndlessStdin bool
	Envd         envd.Version
	// SandboxEnded says that SIGKILL ended the command because its sandbox
	// ended (killed, or its lifetime passed): a bare 137 would hide that.
	SandboxEnded bool
}

// Exec runs a command in a sandbox: in the foreground, its output to sink
// as it comes and its end in the Execution; in the background; or on a
// terminal. A command whose stream was lost to a sandbox that ended or was
// paused fails with that reason (E3001, E2001).
func (s *Service) Exec(ctx context.Context, id string, cmd Command, sink remoteproc.Sink) (*Execution, error) {
	op := Op("process.exec")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	if err := checkCommand(ctx, op, cmd.Argv, cmd.Cwd, cmd.User); err != nil {
		return nil, err
	}
	if err := CheckEnv(op.Input("env").name(ctx), cmd.Env); err != nil {
		return nil, err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, cmd.Timeout); err != nil {
		return nil, err
	}
	c, err := s.Envd(ctx, id, cmd.User, op.Capability)
	if err != nil {
		return nil, err
	}
	return s.execute(ctx, id, c, cmd, sink)
}

// checkCommand checks what a command is given, as op names it: something
// to run, and no NUL where a process's arguments and paths cannot carry
// one; a user envd can be given.
func checkCommand(ctx context.Context, op *Operation, argv []string, cwd, user string) error {
	in := op.Input("command")
	if err := CheckCommand("the "+in.name(ctx), argv); err != nil {
		return err.WithHint("%s", in.Hint)
	}
	for _, a := range argv {
		if strings.ContainsRune(a, 0) {
			// An argument ends at NUL: the command would be another one.
			return abxerr.New(abxerr.InvalidInput, "invalid %s: it holds NUL, which a process's arguments cannot carry", in.name(ctx)).
				WithHint("write the byte the shell's way, e.g. printf '\\0'")
		}
	}
	if strings.ContainsRune(cwd, 0) {
		return abxerr.New(abxerr.InvalidInput, "invalid %s %q: a path cannot hold NUL", op.Input("cwd").name(ctx), cwd)
	}
	return CheckUser(op.Input("user").name(ctx), user)
}

// execute runs cmd on c, checked.
func (s *Service) execute(ctx context.Context, id string, c *envd.Client, cmd Command, sink remoteproc.Sink) (*Execution, error) {
	spec := remoteproc.Spec{Argv: cmd.Argv, Cwd: cmd.Cwd, Env: cmd.Env, Timeout: cmd.Timeout,
		Interactive: cmd.Interactive, Stdin: cmd.Stdin, Signals: cmd.Signals}
	switch {
	case cmd.Background:
		pid, err := remoteproc.Background(ctx, c, spec)
		if err != nil {
			return &Execution{}, err
		}
		return &Execution{PID: pid, EndlessStdin: cmd.Interactive && !c.CanCloseStdin(), Envd: c.Version}, nil
	case cmd.Terminal != nil:
		x, err := onTerminal(ctx, c, cmd)
		return &Execution{Exit: x}, err
	}
	x, err := remoteproc.Run(ctx, c, spec, sink)
	gone, err := s.ended(ctx, id, x, err)
	return &Execution{Exit: x, SandboxEnded: gone}, err
}

// onTerminal runs cmd's line, as bash's login shell runs it, on its
// terminal, until its end, its timeout or a signal.
func onTerminal(ctx context.Context, c *envd.Client, cmd Command) (*remoteproc.Exit, error) {
	if cmd.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cmd.Timeout)
		defer cancel()
	}
	if cmd.Signals != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-cmd.Signals:
				cancel() // a process abx started ends with its session
			case <-ctx.Done():
			}
		}()
	}
	t := *cmd.Terminal
	t.Spec = remoteproc.Spec{Argv: []string{"/bin/bash", "-l", "-c", shell.Line(cmd.Argv)}, Cwd: cmd.Cwd, Env: cmd.Env}
	return t.Run(ctx, c)
}

// lookWait bounds the one read of the sandbox that says why a command
// ended as it did.
const lookWait = 5 * time.Second

// ended says whether a command that abx followed ended by SIGKILL with its
// sandbox, or lost its stream to a sandbox that stopped answering: when
// the sandbox itself is gone (killed, or its lifetime passed) or paused,
// that is the reason, and a bare 137 or 502 would hide it. It reads the
// sandbox once, only in those cases; a read that fails changes nothing.
// For a stream that was lost, it returns the error to report instead.
func (s *Service) ended(ctx context.Context, id string, x *remoteproc.Exit, err error) (bool, error) {
	killed := err == nil && x != nil && x.Code == abxerr.SignalStatus(9)
	lost := err != nil && (errors.Is(err, remoteproc.ErrCut) || errors.Is(envd.AsError(err), envd.ErrNotRunning))
	if !killed && !lost {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookWait)
	defer cancel()
	sb, gerr := s.Get(ctx, id)
	switch {
	case gerr != nil && abxerr.From(gerr).Code == abxerr.NotFound && killed:
		return true, nil
	case gerr != nil && abxerr.From(gerr).Code == abxerr.NotFound:
		return false, abxerr.New(abxerr.NotFound, "sandbox %s ended while the command ran (killed, or its timeout passed): how the command ended is unknown", id).
			Suggest(abxerr.StepList, id)
	case gerr == nil && sb.State == provider.StatePaused && lost:
		e := provider.PausedError(id)
		e.Message = "sandbox " + id + " was paused while the command ran: its stream stopped, and how the command ends is unknown until it is resumed"
		return false, e
	}
	return false, err
}

// Processes lists the processes envd runs in a sandbox, each as a
// listing shows it (remoteproc.Shown: a command abx started is its line).
func (s *Service) Processes(ctx context.Context, id string) ([]envd.Process, error) {
	op := Op("process.list")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	c, err := s.Envd(ctx, id, "", op.Capability)
	if err != nil {
		return nil, err
	}
	list, err := c.List(ctx)
	if err != nil {
		return nil, envd.AsError(err)
	}
	out := make([]envd.Process, 0, len(list))
	for _, p := range list {
		out = append(out, remoteproc.Shown(p))
	}
	return out, nil
}

// Signal sends a process SIGTERM or SIGKILL, the two envd delivers (TERM,
// KILL, SIGKILL, 9, in any case; "" is TERM), and returns the one sent.
func (s *Service) Signal(ctx context.Context, id string, pid uint32, signal string) (string, error) {
	op := Op("process.signal")
	if err := s.onProcess(ctx, op, id, pid); err != nil {
		return "", err
	}
	sig, err := op.Input("signal").CheckChoice(ctx, signalName(signal))
	if err != nil {
		return "", err
	}
	c, err := s.Envd(ctx, id, "", op.Capability)
	if err != nil {
		return "", err
	}
	kill := sig == "KILL"
	if err := c.Signal(ctx, pid, kill); err != nil {
		return "", envd.AsError(err)
	}
	if kill {
		return "SIGKILL", nil
	}
	return "SIGTERM", nil
}

// signalName reads a signal's other names (SIGKILL, 9) as the
// catalogue's; another is left as given, for the refusal to show.
func signalName(v string) string {
	n := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(v)), "SIG")
	switch n {
	case "15", "TERM":
		return "TERM"
	case "9", "KILL":
		return "KILL"
	}
	return v
}

// onProcess begins an operation on one process of a sandbox.
func (s *Service) onProcess(ctx context.Context, op *Operation, id string, pid uint32) error {
	if _, err := s.on(ctx, op, id); err != nil {
		return err
	}
	return op.Input("pid").CheckNumber(ctx, int64(pid))
}

// Stdin sends what data holds to a process's stdin, read in pieces as it
// comes, and closes that stdin after it when closeIt is set; it returns the
// bytes sent. An envd that cannot close a process's stdin is refused
// before anything is read or sent.
func (s *Service) Stdin(ctx context.Context, id string, pid uint32, data io.Reader, closeIt bool) (int, error) {
	op := Op("process.stdin")
	if err := s.onProcess(ctx, op, id, pid); err != nil {
		return 0, err
	}
	c, err := s.Envd(ctx, id, "", op.Capability)
	if err != nil {
		return 0, err
	}
	if closeIt {
		// Refused before anything is sent: half the job would be worse.
		if err := c.CheckCloseStdin(); err != nil {
			return 0, err
		}
	}
	sent, err := remoteproc.Feed(ctx, c, pid, data)
	if err == nil && closeIt {
		err = c.CloseStdin(ctx, pid)
	}
	if err != nil {
		return sent, envd.AsError(err)
	}
	return sent, nil
}

// A DiscardSink is a sink that is told, before anything else, that the
// process it follows writes its output nowhere (a command started in the
// background): only its end will come.
type DiscardSink interface {
	remoteproc.Sink
	Discarded(pid uint32) error
}

// ErrNoProcess is in the chain of Attach's error for a process envd does
// not run (E3001): ended already, or never there.
var ErrNoProcess = errors.New("no such process")

// Attach follows a running process's output to sink until it ends. A
// process envd does not know is E3001, as envd says it; a stream lost to a
// sandbox that ended or was paused fails with that reason, as Exec's.
func (s *Service) Attach(ctx context.Context, id string, pid uint32, sink remoteproc.Sink) (*Execution, error) {
	op := Op("process.attach")
	if err := s.onProcess(ctx, op, id, pid); err != nil {
		return nil, err
	}
	c, err := s.Envd(ctx, id, "", op.Capability)
	if err != nil {
		return nil, err
	}
	if ds, ok := sink.(DiscardSink); ok {
		// A listing that fails says nothing; the attach says what is wrong.
		if list, err := c.List(ctx); err == nil {
			for _, p := range list {
				if p.PID == pid && remoteproc.Discarded(p) {
					if err := ds.Discarded(pid); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	x, err := remoteproc.Attach(ctx, c, pid, sink)
	if e := abxerr.From(err); e != nil && e.Code == abxerr.NotFound {
		// envd knows no such process (a sandbox gone is said below).
		cp := *e
		cp.Message = fmt.Sprintf("no running process %d in sandbox %s", pid, id)
		cp.Cause = ErrNoProcess
		return &Execution{}, &cp
	}
	gone, err := s.ended(ctx, id, x, err)
	return &Execution{Exit: x, SandboxEnded: gone}, err
}

// Terminal runs a session with a process on a terminal of the sandbox's:
// t's command (t.Spec, run as is) as user, or the running process t.PID.
func (s *Service) Terminal(ctx context.Context, id, user string, t *remoteproc.Terminal) (*remoteproc.Exit, error) {
	op := Op("process.terminal")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	if err := CheckUser(op.Input("user").name(ctx), user); err != nil {
		return nil, err
	}
	if err := CheckEnv(op.Input("env").name(ctx), t.Spec.Env); err != nil {
		return nil, err
	}
	if strings.ContainsRune(t.Spec.Cwd, 0) {
		return nil, abxerr.New(abxerr.InvalidInput, "invalid %s %q: a path cannot hold NUL", op.Input("cwd").name(ctx), t.Spec.Cwd)
	}
	c, err := s.Envd(ctx, id, user, op.Capability)
	if err != nil {
		return nil, err
	}
	return t.Run(ctx, c)
}
