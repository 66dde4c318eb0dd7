package process

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ExecOptions are the inputs of `abx exec`.
type ExecOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

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
	// TTY runs the command on a PTY of abx's terminal (docs/terminal.md).
	TTY bool
	// Signals delivers Ctrl-C; nil uses the process's own.
	Signals <-chan os.Signal
}

// execNames are the names of `abx exec`, declared once: its command takes
// them, and its group's Verbs lists them.
var execNames = cmdutil.Names{"exec"}

// NewCmdExec builds `abx exec`.
func NewCmdExec(f *cmdutil.Factory, runF func(context.Context, *ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var env []string
	var timeout string
	cmd := &cobra.Command{
		Use:   execNames.Use("ID [flags] -- CMD [ARG...]"),
		Short: "Run a command in a sandbox, streaming its output",
		Long: `Run a command in a sandbox. Its stdout and stderr stream to abx's as they arrive,
and abx exits with the command's exit status.

One argument is a shell line, run by 'bash -l -c' (pipes, globs, && and $VARS work).
Several arguments are an argv: each is quoted, so spaces and quotes arrive intact.
Either way the command runs through bash's login shell, with stdin at /dev/null;
-i streams abx's stdin to it, and the end of that input ends the command's (Ctrl-D
on a terminal), on every envd: where envd cannot close a process's stdin (before
0.5.2, as clusters run) abx relays it through a terminal of envd's and a FIFO, so
that a command like 'wc -l' sees its end (docs/exec.md, "Input"). -t runs the
command on a terminal (-it for a full-screen program; 'abx terminal' for a shell,
docs/terminal.md).

The command runs in a process group of its own, and Ctrl-C stops all of it: SIGTERM
to the whole group, SIGKILL if it has not ended 2 s later; abx stops waiting after 3 s,
or at once on a second Ctrl-C. SIGTERM and SIGHUP to abx (a closed terminal) do the
same, and so does a reader of abx's output that went away ('| head -2').

Exit status: the command's own; 128+n when signal n ended it; 124 when --timeout
passed; 127 when the command was not found; 125 when abx itself failed (bad
input, the sandbox, the network); 130 after Ctrl-C; 141, quietly, when the reader
of its output went away.

A stream that a proxy or the network cuts while the command runs is taken up again
(by PID, for up to --idle-timeout): abx says so in one line on stderr, since output
written in the gap is missing, and still exits with the command's status.

-o json prints JSON Lines: {"type":"start","pid":N}, {"type":"stdout","data":"…"},
{"type":"stderr","data":"…"}, {"type":"reconnect",…} after a cut,
{"type":"end","exitCode":N,"status":"…"}; output that is not UTF-8 comes as
"dataBase64" instead of "data".`,
		Example: `  abx exec "$id" -- uname -a
  abx exec "$id" -- 'ps aux | grep python | wc -l'
  abx exec "$id" --cwd /tmp --env DEBUG=1 -- python3 -c 'print("hi")'
  abx exec "$id" --timeout 30s -- ./long-job.sh
  abx exec "$id" --background -- 'python3 -m http.server 8080'
  abx exec "$id" -o json -- ls | jq -r 'select(.type=="stdout") | .data'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return cmdutil.UsageError(cmd, "abx exec needs a sandbox ID and a command")
			}
			if cmd.ArgsLenAtDash() != 1 {
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
			if opts.TTY && opts.Background {
				return cmdutil.UsageError(cmd, "--tty needs a terminal to show: it cannot go with --background")
			}
			if cmd.Flags().Changed("timeout") {
				in := sandboxes.Op("process.exec").Input("timeout")
				if opts.Timeout, err = cmdutil.ParseSeconds("--timeout", timeout, in, "for no limit"); err != nil {
					return err
				}
			}
			return cmdutil.Run(cmd, opts, runF, runExec)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Cwd, "cwd", "w", "", "working directory in the sandbox (default: the user's home)")
	fl.StringVarP(&opts.User, "user", "u", "", `Linux user to run as (default "user")`)
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE (repeatable)")
	fl.StringVar(&timeout, "timeout", "", "kill the command after this long (default: no limit)")
	fl.BoolVarP(&opts.Background, "background", "d", false, "start the command, print its PID and return; its output is discarded")
	fl.BoolVarP(&opts.Interactive, "interactive", "i", false, "stream abx's stdin to the command, its end included (or, with --background, feed it later with 'abx ps stdin')")
	fl.BoolVarP(&opts.TTY, "tty", "t", false, "run the command on a terminal of this one's size, keys in raw (docs/terminal.md); stdin that is no terminal runs without one")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.PassThrough(cmd)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "process.exec")
}

// commandTarget reads what exec and terminal share: the sandbox ID and
// the --env variables.
func commandTarget(id string, env []string) (string, map[string]string, error) {
	id, err := cmdutil.SandboxID(id)
	if err != nil {
		return "", nil, err
	}
	vars, err := cmdutil.ParseKeyValues("--env", env)
	if err != nil {
		return "", nil, err
	}
	return id, vars, nil
}

// command is the command the options run, its output to the sink.
func (opts *ExecOptions) command() sandboxes.Command {
	return sandboxes.Command{Argv: opts.Argv, Cwd: opts.Cwd, User: opts.User, Env: opts.Env, Timeout: opts.Timeout,
		Interactive: opts.Interactive, Stdin: opts.IO.In, Signals: opts.Signals, Background: opts.Background}
}

func runExec(ctx context.Context, opts *ExecOptions) error {
	cmd := opts.command()
	if opts.Background {
		x, err := opts.Sandboxes.Exec(ctx, opts.ID, cmd, nil)
		if err != nil {
			return err
		}
		if x.EndlessStdin {
			// Said at the start: nothing abx does later can end its input.
			opts.Printer.Note("envd %s cannot close a process's stdin: process %d reads what 'abx ps stdin' sends, but never the end of it (docs/exec.md, \"Input\")", x.Envd, x.PID)
		}
		// exec's JSON is a stream of lines, in the background too.
		return opts.Printer.Stream(output.StreamSpec{}).Row(struct {
			PID uint32 `json:"pid"`
		}{x.PID}, strconv.FormatUint(uint64(x.PID), 10))
	}
	if opts.TTY {
		if local, err := localTerminal(opts.IO); err == nil {
			return runExecTTY(ctx, opts, cmd, local)
		}
		// As kubectl: the command runs, without a terminal.
		fmt.Fprintln(opts.IO.ErrOut, "abx: stdin is not a terminal: running the command without a TTY")
	}
	out := newSink(opts.Printer, true)
	x, err := opts.Sandboxes.Exec(ctx, opts.ID, cmd, out)
	return out.end(opts.ID, x, err)
}
