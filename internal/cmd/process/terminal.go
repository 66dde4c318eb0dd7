package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/tty"
)

// TerminalOptions are the inputs of `abx terminal`.
type TerminalOptions struct {
	IO        *output.Streams
	Sandboxes *sandboxes.Service

	ID     string
	Argv   []string // empty: a login shell
	Cwd    string
	User   string
	Env    map[string]string
	Attach uint32
}

// detachKeys end a session and leave its process running: Ctrl-P Ctrl-Q,
// as docker's.
var detachKeys = []byte{0x10, 0x11}

// terminalNames are the names of `abx terminal`, declared once: its command takes
// them, and its group's Verbs lists them.
var terminalNames = cmdutil.Names{"terminal"}

// NewCmdTerminal builds `abx terminal`.
func NewCmdTerminal(f *cmdutil.Factory, runF func(context.Context, *TerminalOptions) error) *cobra.Command {
	opts := &TerminalOptions{IO: f.IO, Sandboxes: f.Sandboxes}
	var env []string
	var attach string
	cmd := &cobra.Command{
		Use:   terminalNames.Use("ID [flags] [-- CMD [ARG...]]"),
		Short: "Open an interactive terminal in a sandbox",
		Long: `Open an interactive terminal in a sandbox: a login shell (bash -i -l), or CMD, on a
pseudo-terminal of this terminal's size. Every key goes to the sandbox as typed (Ctrl-C,
Ctrl-Z, Ctrl-D and the arrows included), and a resize of this window reaches it.

Ctrl-P Ctrl-Q detaches: abx ends and the shell runs on; 'abx terminal ID --attach PID'
gets back to it. A Ctrl-P alone reaches the shell with the next key. --attach joins
only a process on a terminal: one that exec started has none, and is refused before
anything else ('abx ps attach ID PID' follows its output).

TERM is this terminal's (xterm-256color when unset), LANG and LC_ALL are C.UTF-8 unless
--env sets them.

Exit status: the shell's (or CMD's) own, as with exec; 0 after a detach; 2 without a
terminal on stdin (pipe input with 'abx exec -i' instead).`,
		Example: `  abx terminal "$id"
  abx terminal "$id" --user root --cwd /var/log
  abx terminal "$id" -- python3
  abx terminal "$id" --attach 42`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return cmdutil.UsageError(cmd, "abx terminal needs a sandbox ID")
			}
			if dash := cmd.ArgsLenAtDash(); (dash == -1 && len(args) > 1) || dash > 1 {
				return cmdutil.UsageError(cmd, "put -- between the sandbox ID and the command")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.Env, err = commandTarget(args[0], env); err != nil {
				return err
			}
			opts.Argv = args[1:]
			if cmd.Flags().Changed("attach") {
				pid, err := strconv.ParseUint(attach, 10, 32)
				if err != nil || pid == 0 {
					return abxerr.New(abxerr.Usage, "--attach takes a process ID, a positive number, got %q", attach).
						WithHint("run 'abx ps %s' to see the processes", opts.ID)
				}
				if len(opts.Argv) > 0 {
					return cmdutil.UsageError(cmd, "--attach joins a running process: give no command")
				}
				opts.Attach = uint32(pid)
			}
			return cmdutil.Run(cmd, opts, runF, runTerminal)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Cwd, "cwd", "w", "", "working directory in the sandbox (default: the user's home)")
	fl.StringVarP(&opts.User, "user", "u", "", `Linux user to run as (default "user")`)
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE (repeatable)")
	fl.StringVar(&attach, "attach", "", "join the running terminal process PID (one a detach left running)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.PassThrough(cmd)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "process.terminal")
}

// localTerminal is abx's stdin as a terminal, or the usage error that says
// a terminal is needed.
func localTerminal(io *output.Streams) (*tty.Term, error) {
	if f, ok := io.In.(*os.File); ok && io.StdinTTY {
		if t, ok := tty.Open(f); ok {
			return t, nil
		}
	}
	return nil, abxerr.New(abxerr.Usage, "abx terminal needs a terminal on stdin").
		WithHint("to pipe input to a command, run 'abx exec -i ID -- CMD'")
}

// sessionEnv is the environment of a terminal's process: the local
// terminal's type and a UTF-8 locale, under what --env gives.
func sessionEnv(given map[string]string) map[string]string {
	env := map[string]string{"TERM": os.Getenv("TERM"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
	if env["TERM"] == "" || env["TERM"] == "dumb" {
		env["TERM"] = "xterm-256color"
	}
	for k, v := range given {
		env[k] = v
	}
	return env
}

func runTerminal(ctx context.Context, opts *TerminalOptions) error {
	local, err := localTerminal(opts.IO)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGTERM)
	defer stop()
	t := &remoteproc.Terminal{
		Spec: remoteproc.Spec{Argv: shellOr(opts.Argv), Cwd: opts.Cwd, Env: sessionEnv(opts.Env)},
		PID:  opts.Attach,
		// Detach: the process runs on; --attach gets back to it.
		Detach: detachKeys,
	}
	release := session(ctx, opts.IO, local, t)
	defer release()
	x, err := opts.Sandboxes.Terminal(ctx, opts.ID, opts.User, t)
	release()
	if errors.Is(err, remoteproc.ErrNoTerminal) {
		e := *abxerr.From(err)
		e.Hint = fmt.Sprintf("run 'abx ps attach %s %d' to follow its output", opts.ID, opts.Attach)
		return &e
	}
	return sessionEnd(opts.IO, opts.ID, x, err)
}

// sessionEnd is how abx ends after a session: as the process did; 0 after
// a detach, saying how to get back; the error otherwise.
func sessionEnd(io *output.Streams, id string, x *remoteproc.Exit, err error) error {
	if d := (*remoteproc.DetachedError)(nil); errors.As(err, &d) {
		// On a terminal the remote left its cursor where it was, after
		// its prompt: the message starts a line of its own.
		if io.StderrTTY {
			fmt.Fprint(io.ErrOut, "\r\n")
		}
		fmt.Fprintf(io.ErrOut, "Detached; process %d runs on. Get back with: abx terminal %s --attach %d\n", d.PID, id, d.PID)
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return abxerr.Status(abxerr.ExitTimeout) // exec -t's --timeout
	}
	if errors.Is(err, remoteproc.ErrKeysRefused) {
		e := *abxerr.From(err)
		e.Hint = "the keys were not sent again; 'abx ps " + id + "' shows whether the process runs"
		return &e
	}
	if err != nil {
		return cutHint(err, id)
	}
	if x.Code != 0 {
		return abxerr.Status(x.Code)
	}
	return nil
}

// shellOr is argv, or an interactive login shell.
func shellOr(argv []string) []string {
	if len(argv) > 0 {
		return argv
	}
	return []string{"/bin/bash", "-i", "-l"}
}

// session readies t to run on the local terminal: raw from the process's
// start, the same size as the local one, its resizes followed. release
// gives the terminal back (its mode restored, its resizes no longer
// followed) once the session ended, however it ended (the process's end, a
// detach, a broken connection, a signal, a panic); once, whoever calls it
// first.
func session(ctx context.Context, io *output.Streams, local *tty.Term, t *remoteproc.Terminal) (release func()) {
	// The resizes are followed until the session ends, and no longer: the
	// local terminal is the caller's again then.
	rctx, rstop := context.WithCancel(ctx)
	resizes, sizes, forwarded := local.Resizes(rctx), make(chan envd.Size), make(chan struct{})
	go func() {
		defer close(forwarded)
		for r := range resizes {
			select {
			case sizes <- size(r[0], r[1]):
			case <-rctx.Done():
			}
		}
	}()
	cols, rows := local.Size()
	screen := newScreenLine(io.Out)
	t.Size, t.Keys, t.Screen, t.Resizes = size(cols, rows), io.In, screen, sizes
	t.Started = func(uint32) { _ = local.Raw() }
	t.Reconnected = func(r remoteproc.Reconnect) error {
		// The terminal is raw: a line of its own needs its carriage return.
		if _, err := fmt.Fprintf(io.ErrOut, "\r\nabx: the session's stream was cut after %.1fs (%s); reattached %.1fs later: the screen may miss what came in between\r\n",
			r.CutAfter.Seconds(), r.Reason, r.Gap.Seconds()); err != nil {
			return err
		}
		// The note left the prompt above it: the line is drawn again
		// under it, so that what is typed next follows a prompt.
		return screen.redraw()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			rstop()
			<-forwarded
			local.Restore()
		})
	}
}

// size is a terminal size as envd takes it.
func size(cols, rows int) envd.Size {
	clamp := func(n int) uint16 { return uint16(min(max(n, 1), 65535)) }
	return envd.Size{Cols: clamp(cols), Rows: clamp(rows)}
}

// runExecTTY is `abx exec -t`: the command line, as exec runs it (bash's
// login shell), on a PTY of the local terminal.
func runExecTTY(ctx context.Context, opts *ExecOptions, cmd sandboxes.Command, local *tty.Term) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGTERM)
	defer stop()
	cmd.Env, cmd.Terminal = sessionEnv(opts.Env), &remoteproc.Terminal{Detach: detachKeys}
	release := session(ctx, opts.IO, local, cmd.Terminal)
	defer release()
	x, err := opts.Sandboxes.Exec(ctx, opts.ID, cmd, nil)
	release()
	return sessionEnd(opts.IO, opts.ID, exitOf(x), err)
}

// exitOf is how a command ended, nil when it was not seen to end.
func exitOf(x *sandboxes.Execution) *remoteproc.Exit {
	if x == nil {
		return nil
	}
	return x.Exit
}
