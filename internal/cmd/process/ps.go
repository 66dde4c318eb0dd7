package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// PsOptions are the inputs of `abx ps` and its subcommands.
type PsOptions struct {
	IO     *output.Streams
	Envd   func(ctx context.Context, id, user string) (*envd.Client, error)
	Format output.Format

	ID    string
	PID   uint32
	Kill  bool   // SIGKILL instead of SIGTERM
	Data  []byte // stdin to send; nil reads abx's stdin
	Close bool   // close stdin after sending
}

// NewCmdPs builds `abx ps` and its subcommands.
func NewCmdPs(f *Factory) *cobra.Command {
	opts := &PsOptions{IO: f.IO, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "ps ID",
		Short: "List and manage the processes running in a sandbox",
		Long: `List the processes envd runs in a sandbox, send them signals, feed their stdin,
or attach to their output.`,
		Example: `  abx ps "$id"
  abx ps "$id" -o json | jq -r '.[] | select(.cmd == "/bin/bash") | .pid'
  abx ps kill "$id" 4242
  abx ps attach "$id" 4242`,
		Args: exactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID = f.Format, args[0]
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			return runPsList(cmd.Context(), opts)
		},
	}
	needs(cmd, provider.ProcessManage)

	var signal string
	kill := &cobra.Command{
		Use:   "kill ID PID [--signal TERM|KILL]",
		Short: "Send SIGTERM (default) or SIGKILL to a process",
		Long:  "Send a signal to a process. envd delivers SIGTERM and SIGKILL only.",
		Example: `  abx ps kill "$id" 4242
  abx ps kill "$id" 4242 --signal KILL`,
		Args: exactArgs("ID", "PID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := psTarget(opts, f, args); err != nil {
				return err
			}
			switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(signal), "SIG")) {
			case "TERM", "15":
				opts.Kill = false
			case "KILL", "9":
				opts.Kill = true
			default:
				return abxerr.New(abxerr.InvalidInput, "invalid --signal %q", signal).
					WithHint("envd delivers TERM (15) and KILL (9) only")
			}
			return runPsKill(cmd.Context(), opts)
		},
	}
	kill.Flags().StringVarP(&signal, "signal", "s", "TERM", "TERM or KILL")

	var data string
	stdin := &cobra.Command{
		Use:   "stdin ID PID [DATA] [--close]",
		Short: "Send data to a process's stdin, from the argument or abx's stdin",
		Long: `Send data to a process's stdin: the DATA argument as given, or without it everything
abx reads from its own stdin, streamed in chunks. --close closes the process's stdin
afterwards (envd 0.5.2 and later).

Processes started by 'abx exec' have stdin at /dev/null; start the command with
a reader of your own (for example a named pipe) to feed it later.`,
		Example: `  abx ps stdin "$id" 4242 'print(1)\n'
  cat input.txt | abx ps stdin "$id" 4242 --close`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 || len(args) > 3 {
				return argsError(cmd, len(args), []string{"ID", "PID", "[DATA]"})
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := psTarget(opts, f, args[:2]); err != nil {
				return err
			}
			opts.Data = nil
			if len(args) == 3 {
				data = args[2]
				opts.Data = []byte(data)
			}
			return runPsStdin(cmd.Context(), opts)
		},
	}
	stdin.Flags().BoolVar(&opts.Close, "close", false, "close the process's stdin after sending")

	attach := &cobra.Command{
		Use:         "attach ID PID",
		Short:       "Follow a running process's output until it ends, and exit with its status",
		Annotations: map[string]string{annotOwnStatus: "true"},
		Long: `Attach to a running process: its stdout and stderr stream to abx's from now on
(output from before is not kept by envd) and abx exits with the process's exit
status when it ends. Ctrl-C detaches and leaves the process running.`,
		Example: `  pid=$(abx exec "$id" --background -- ./job.sh)
  abx ps attach "$id" "$pid"`,
		Args: exactArgs("ID", "PID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := psTarget(opts, f, args); err != nil {
				return err
			}
			return runPsAttach(cmd.Context(), opts)
		},
	}
	for _, sub := range []*cobra.Command{kill, stdin, attach} {
		cmd.AddCommand(needs(sub, provider.ProcessManage))
	}
	return cmd
}

// psTarget reads ID and PID.
func psTarget(opts *PsOptions, f *Factory, args []string) error {
	opts.Format, opts.ID = f.Format, args[0]
	if err := checkIDs(opts.ID); err != nil {
		return err
	}
	n, err := strconv.ParseUint(args[1], 10, 32)
	if err != nil || n == 0 {
		return abxerr.New(abxerr.InvalidInput, "invalid PID %q", args[1]).
			WithHint("give a process ID as shown by 'abx ps %s'", opts.ID)
	}
	opts.PID = uint32(n)
	return nil
}

func runPsList(ctx context.Context, opts *PsOptions) error {
	c, err := opts.Envd(ctx, opts.ID, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	list, err := c.List(ctx)
	if err != nil {
		return envd.AsError(err)
	}
	switch opts.Format {
	case output.JSON:
		return output.WriteJSON(opts.IO.Out, list)
	case output.Name:
		for _, p := range list {
			if _, err := fmt.Fprintf(opts.IO.Out, "process/%d\n", p.PID); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(opts.IO.ErrOut, "no processes")
		return err
	}
	t := opts.IO.NewTable("pid", "tag", "command", "cwd")
	for _, p := range list {
		t.Row(strconv.Itoa(int(p.PID)), dash(p.Tag), strings.Join(append([]string{p.Cmd}, p.Args...), " "), dash(p.Cwd))
	}
	return t.Render()
}

func runPsKill(ctx context.Context, opts *PsOptions) error {
	c, err := opts.Envd(ctx, opts.ID, "")
	if err != nil {
		return err
	}
	if err := c.Signal(ctx, opts.PID, opts.Kill); err != nil {
		return envd.AsError(err)
	}
	sig := "SIGTERM"
	if opts.Kill {
		sig = "SIGKILL"
	}
	note(opts.IO, opts.Format, "process %d sent %s", opts.PID, sig)
	if opts.Format == output.JSON {
		return output.WriteJSON(opts.IO.Out, struct {
			PID    uint32 `json:"pid"`
			Signal string `json:"signal"`
		}{opts.PID, sig})
	}
	return nil
}

// stdinChunk bounds each SendInput: abx's stdin is streamed, never read whole.
const stdinChunk = 64 << 10

func runPsStdin(ctx context.Context, opts *PsOptions) error {
	c, err := opts.Envd(ctx, opts.ID, "")
	if err != nil {
		return err
	}
	if opts.Close && !c.Version.AtLeast(envd.CloseStdin) {
		return abxerr.New(abxerr.Unsupported, "this sandbox's envd %s cannot close stdin (it needs 0.5.2 or newer)", c.Version).
			WithHint("send the data without --close, or end the input in a way the program understands")
	}
	src := opts.IO.In
	if opts.Data != nil {
		src = bytes.NewReader(opts.Data)
	}
	buf := make([]byte, stdinChunk)
	sent := 0
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if err := c.SendStdin(ctx, opts.PID, buf[:n]); err != nil {
				return stdinError(err, opts.PID)
			}
			sent += n
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return abxerr.New(abxerr.InvalidInput, "cannot read stdin: %v", rerr)
		}
	}
	if opts.Close {
		if err := c.CloseStdin(ctx, opts.PID); err != nil {
			return stdinError(err, opts.PID)
		}
	}
	note(opts.IO, opts.Format, "sent %d bytes to process %d", sent, opts.PID)
	return nil
}

func stdinError(err error, pid uint32) error {
	e := abxerr.From(envd.AsError(err))
	if strings.Contains(e.Message, "stdin not enabled") {
		e.Message = fmt.Sprintf("process %d has no stdin: it was started without one", pid)
		e.Hint = "only processes started with stdin open can be fed"
	}
	return e
}

func runPsAttach(ctx context.Context, opts *PsOptions) error {
	c, err := opts.Envd(ctx, opts.ID, "")
	if err != nil {
		return err
	}
	asJSON := opts.Format == output.JSON
	end, err := c.Connect(ctx, opts.PID, func(ev envd.Event) error {
		return writeOutput(opts.IO, asJSON, ev)
	})
	if err != nil {
		e := abxerr.From(envd.AsError(err))
		if e.Code == abxerr.NotFound {
			e.Message = fmt.Sprintf("no running process %d in sandbox %s", opts.PID, opts.ID)
			e.Hint = "it may have ended already; run 'abx ps " + opts.ID + "'"
		}
		return e
	}
	code := exitCodeOf(end)
	if asJSON {
		if err := output.WriteJSONLine(opts.IO.Out, execEnd{Type: "end", ExitCode: code, Status: end.Status}); err != nil {
			return err
		}
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}
