package process

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// PsOptions are the inputs of `abx ps`.
type PsOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID string
}

// psNames are the names of `abx ps`, declared once: its command takes
// them, and its group's Verbs lists them.
var psNames = cmdutil.Names{"ps"}

// NewCmdPs builds `abx ps` and its subcommands.
func NewCmdPs(f *cmdutil.Factory) *cobra.Command {
	cmd := newCmdPsList(f, nil)
	cmd.AddCommand(NewCmdPsKill(f, nil), NewCmdPsStdin(f, nil), NewCmdPsAttach(f, nil))
	return cmd
}

func newCmdPsList(f *cmdutil.Factory, runF func(context.Context, *PsOptions) error) *cobra.Command {
	opts := &PsOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   psNames.Use("ID"),
		Short: "List and manage the processes running in a sandbox",
		Long: `List the processes envd runs in a sandbox, send them signals, feed their stdin,
or attach to their output.`,
		Example: `  abx ps "$id"
  abx ps "$id" -o json | jq -r '.[] | select(.cmd == "/bin/bash") | .pid'
  abx ps kill "$id" 4242
  abx ps attach "$id" 4242`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runPs)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Does(cmd, "process.list")
}

func runPs(ctx context.Context, opts *PsOptions) error {
	list, err := opts.Sandboxes.Processes(ctx, opts.ID)
	if err != nil {
		return err
	}
	pids := make([]string, len(list))
	for i, p := range list {
		pids[i] = strconv.FormatUint(uint64(p.PID), 10)
	}
	return opts.Printer.Print(list, pids, func() error {
		if len(list) == 0 {
			opts.Printer.Note("no processes")
			return nil
		}
		t := opts.Printer.Table("pid", "tag", "command", "cwd")
		for i, p := range list {
			t.Row(pids[i], output.Dash(p.Tag), strings.Join(append([]string{p.Cmd}, p.Args...), " "), output.Dash(p.Cwd))
		}
		return t.Render()
	})
}

// target reads the ID and PID arguments of a ps subcommand: a PID is a
// number (which ones a process may have is the operation's to say).
func target(args []string) (string, uint32, error) {
	id, err := cmdutil.SandboxID(args[0])
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.ParseUint(args[1], 10, 32)
	if err != nil {
		return "", 0, abxerr.New(abxerr.InvalidInput, "invalid PID %q", args[1]).
			WithHint("give a process ID as shown by 'abx ps %s'", id)
	}
	return id, uint32(n), nil
}

// pidSpelling names a ps subcommand's PID argument in its errors.
const pidSpelling = "pid=PID"
