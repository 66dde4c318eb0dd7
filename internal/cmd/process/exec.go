package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// Exit statuses of exec beyond the remote command's own (docker's
// convention): abx could not run it, or the shell did not find it.
const (
	exitExecFailed   = 125
	exitExecNotFound = 127
)

// ExecOptions are the inputs of `abx exec`.
type ExecOptions struct {
	IO     *output.Streams
	Envd   func(ctx context.Context, id, user string) (*envd.Client, error)
	Format output.Format

	ID         string
	Argv       []string
	Cwd        string
	User       string
	Env        map[string]string
	Timeout    time.Duration
	Background bool
	// Interactive keeps the command's stdin open: abx's stdin is streamed to
	// it, or with --background it waits for 'abx ps stdin'.
	Interactive bool
	// Signals delivers Ctrl-C; nil uses the process's own.
	Signals <-chan os.Signal
}

// NewCmdExec builds `abx exec`.
func NewCmdExec(f *Factory, runF func(context.Context, *ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IO, Envd: f.EnvdClient}
	var env []string
	var timeout string
	cmd := &cobra.Command{
		Use:   "exec ID [flags] -- CMD [ARG...]",
		Short: "Run a command in a sandbox, streaming its output",
		Long: `Run a command in a sandbox. Its stdout and stderr stream to abx's as they arrive,
and abx exits with the command's exit status.

One argument is a shell line, run by 'bash -l -c' (pipes, globs, && and $VARS work).
Several arguments are an argv: each is quoted, so spaces and quotes arrive intact.
Either way the command runs through bash's login shell, with stdin at /dev/null.

Exit status: the command's own; 128+n when signal n ended it; 124 when --timeout
passed; 127 when the command was not found; 125 when abx itself failed (bad
input, the sandbox, the network); 130 after Ctrl-C, which sends SIGTERM to the
command (a second Ctrl-C sends SIGKILL).

-o json prints JSON Lines: {"type":"start","pid":N}, {"type":"stdout","data":"…"},
{"type":"stderr","data":"…"}, {"type":"end","exitCode":N,"status":"…"}; output that
is not UTF-8 comes as "dataBase64" instead of "data".`,
		Example: `  abx exec "$id" -- uname -a
  abx exec "$id" -- 'ps aux | grep python | wc -l'
  abx exec "$id" --cwd /tmp --env DEBUG=1 -- python3 -c 'print("hi")'
  abx exec "$id" --timeout 30s -- ./long-job.sh
  abx exec "$id" --background -- 'python3 -m http.server 8080'
  abx exec "$id" -o json -- ls | jq -r 'select(.type=="stdout") | .data'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError(cmd, "abx exec needs a sandbox ID and a command")
			}
			if cmd.ArgsLenAtDash() != 1 {
				return usageError(cmd, "put -- between the sandbox ID and the command")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID, opts.Argv = f.Format, args[0], args[1:]
			if err := checkIDs(opts.ID); err != nil {
				return execFailed(err)
			}
			var err error
			if opts.Env, err = parseKeyValues("--env", env); err != nil {
				return execFailed(err)
			}
			if cmd.Flags().Changed("timeout") {
				if opts.Timeout, err = parseTimeout("--timeout", timeout, time.Second); err != nil {
					return execFailed(err)
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runExec(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Cwd, "cwd", "w", "", "working directory in the sandbox (default: the user's home)")
	fl.StringVarP(&opts.User, "user", "u", "", `Linux user to run as (default "user")`)
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE (repeatable)")
	fl.StringVar(&timeout, "timeout", "", "kill the command after this long (default: no limit)")
	fl.BoolVarP(&opts.Background, "background", "d", false, "start the command, print its PID and return; its output is discarded")
	fl.BoolVarP(&opts.Interactive, "interactive", "i", false, "keep stdin open: stream abx's stdin to the command (or feed it later with 'abx ps stdin')")
	cmd.Annotations = map[string]string{annotOwnStatus: "true"}
	return needs(cmd, provider.ExecRun)
}

// The JSON Lines events of exec (docs/json.md); streamData carries output.
type execStart struct {
	Type string `json:"type"`
	PID  uint32 `json:"pid"`
}

type execEnd struct {
	Type     string `json:"type"`
	ExitCode int    `json:"exitCode"`
	Status   string `json:"status"`
}

// execFailed marks abx's own failure in exec with status 125, keeping the
// error's code.
func execFailed(err error) error {
	e := abxerr.From(err)
	if e.Code == abxerr.Interrupted || e.Code == abxerr.Timeout {
		return e
	}
	cp := *e
	cp.Exit = exitExecFailed
	return &cp
}

// shellLine is the command line bash runs: one argument as written, several
// quoted one by one.
func shellLine(argv []string) string {
	if len(argv) == 1 {
		return argv[0]
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// execCommand wraps the line for envd. stdin is /dev/null: envd 0.2.10 gives
// every process a pipe that never closes, so a command reading stdin would
// wait for ever. A background command's output goes nowhere: envd drops
// output nobody reads, and a full pipe can wedge the process.
func execCommand(opts *ExecOptions) envd.Command {
	var redirect string
	if !opts.Interactive {
		redirect += "exec </dev/null; "
	}
	if opts.Background {
		redirect += "exec >/dev/null 2>&1; "
	}
	return envd.Command{
		Cmd:   "/bin/bash",
		Args:  []string{"-l", "-c", redirect + shellLine(opts.Argv)},
		Env:   opts.Env,
		Cwd:   opts.Cwd,
		Stdin: opts.Interactive,
	}
}

// pumpStdin streams abx's stdin to the process and closes the process's
// stdin at the end where envd can (0.5.2 and later).
func pumpStdin(ctx context.Context, c *envd.Client, pid uint32, in io.Reader) {
	buf := make([]byte, stdinChunk)
	for {
		n, err := in.Read(buf)
		if n > 0 && c.SendStdin(ctx, pid, buf[:n]) != nil {
			return
		}
		if err != nil {
			if c.Version.AtLeast(envd.CloseStdin) {
				_ = c.CloseStdin(ctx, pid)
			}
			return
		}
	}
}

func runExec(ctx context.Context, opts *ExecOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return execFailed(err)
	}
	if opts.Background {
		return runBackground(ctx, c, opts)
	}

	// The stream outlives the first Ctrl-C, which only asks the remote
	// process to stop; its end event still decides what abx reports.
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	if opts.Timeout > 0 {
		streamCtx, cancel = context.WithTimeout(streamCtx, opts.Timeout)
		defer cancel()
	}
	sigs := opts.Signals
	if sigs == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	var (
		mu          sync.Mutex
		pid         uint32
		interrupted int
	)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sigs:
				mu.Lock()
				interrupted++
				p, kill := pid, interrupted > 1
				mu.Unlock()
				if p != 0 {
					signalRemote(ctx, c, p, kill)
				}
				// A second Ctrl-C stops waiting too: children the command
				// left behind can hold its output open for ever. (A first
				// one before the command started is sent when it starts.)
				if kill {
					cancel()
				}
			}
		}
	}()

	asJSON := opts.Format == output.JSON
	end, err := c.Start(streamCtx, execCommand(opts), func(ev envd.Event) error {
		if ev.Started == nil {
			return writeOutput(opts.IO, asJSON, ev)
		}
		mu.Lock()
		pid = *ev.Started
		pending := interrupted > 0
		mu.Unlock()
		if pending {
			signalRemote(ctx, c, *ev.Started, false)
		}
		if opts.Interactive {
			go pumpStdin(streamCtx, c, *ev.Started, opts.IO.In)
		}
		if asJSON {
			return output.WriteJSONLine(opts.IO.Out, execStart{Type: "start", PID: *ev.Started})
		}
		return nil
	})
	mu.Lock()
	wasInterrupted := interrupted > 0
	mu.Unlock()
	if err != nil {
		// Connect can report the deadline a moment before the context's
		// own timer marks it: either way it is --timeout's.
		if opts.Timeout > 0 && (streamCtx.Err() == context.DeadlineExceeded ||
			abxerr.From(envd.AsError(err)).Code == abxerr.Timeout) {
			return abxerr.New(abxerr.Timeout, "the command did not finish within %s and was killed", opts.Timeout)
		}
		if wasInterrupted {
			return abxerr.New(abxerr.Interrupted, "interrupted")
		}
		e := abxerr.From(envd.AsError(err))
		if strings.Contains(e.Message, "executable file not found") {
			e.Exit = exitExecNotFound
			return e
		}
		return execFailed(e)
	}
	code := exitCodeOf(end)
	if asJSON {
		if err := output.WriteJSONLine(opts.IO.Out, execEnd{Type: "end", ExitCode: code, Status: end.Status}); err != nil {
			return execFailed(err)
		}
	}
	if wasInterrupted {
		return abxerr.New(abxerr.Interrupted, "interrupted: the command ended with %s", end.Status)
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}

// signalRemote sends SIGTERM (or SIGKILL) to the remote process, even
// though abx's own context is being cancelled by the interrupt.
func signalRemote(ctx context.Context, c *envd.Client, pid uint32, kill bool) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = c.Signal(sctx, pid, kill)
}

// exitCodeOf is the status abx exits with: the command's own, or 128+n for
// a signal (envd reports those as -1 with the signal in the status).
func exitCodeOf(end *envd.End) int {
	if end.Exited || end.ExitCode >= 0 {
		return end.ExitCode
	}
	for n, name := range signalNames {
		if strings.HasSuffix(end.Status, name) {
			return 128 + n
		}
	}
	return 128 + int(syscall.SIGKILL)
}

// signalNames are how Go (and so envd) words the signals a command dies of.
var signalNames = map[int]string{
	1: "hangup", 2: "interrupt", 3: "quit", 4: "illegal instruction", 6: "aborted", 7: "bus error",
	8: "floating point exception", 9: "killed", 11: "segmentation fault", 13: "broken pipe",
	14: "alarm clock", 15: "terminated", 10: "user defined signal 1", 12: "user defined signal 2",
}

// runBackground starts the command, reports its pid and detaches.
func runBackground(ctx context.Context, c *envd.Client, opts *ExecOptions) error {
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var pid uint32
	_, err := c.Start(streamCtx, execCommand(opts), func(ev envd.Event) error {
		if ev.Started != nil {
			pid = *ev.Started
			return errDetach
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDetach) {
		return execFailed(envd.AsError(err))
	}
	if pid == 0 {
		return execFailed(abxerr.New(abxerr.BadResponse, "envd did not report the process's pid"))
	}
	if opts.Format == output.JSON {
		return output.WriteJSONLine(opts.IO.Out, struct {
			PID uint32 `json:"pid"`
		}{pid})
	}
	_, err = fmt.Fprintln(opts.IO.Out, pid)
	return err
}

// errDetach stops following a stream on purpose.
var errDetach = errors.New("detach")
