package process

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// PsKillOptions are the inputs of `abx ps kill`.
type PsKillOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID  string
	PID uint32
	// Signal is TERM or KILL (SIGKILL, 9...), as --signal gave it.
	Signal string
}

// NewCmdPsKill builds `abx ps kill`.
func NewCmdPsKill(f *cmdutil.Factory, runF func(context.Context, *PsKillOptions) error) *cobra.Command {
	opts := &PsKillOptions{Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   "kill ID PID [--signal TERM|KILL]",
		Short: "Send SIGTERM (default) or SIGKILL to a process",
		Long: `Send a signal to a process. envd delivers SIGTERM and SIGKILL only.

A command started by 'abx exec' gets the signal with every process of its process
group; after SIGTERM the group has 2 s to end before it is killed.`,
		Example: `  abx ps kill "$id" 4242
  abx ps kill "$id" 4242 --signal KILL`,
		Args: cmdutil.ExactArgs("ID", "PID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.PID, err = target(args); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runPsKill)
		},
	}
	cmd.Flags().StringVarP(&opts.Signal, "signal", "s", "TERM", "TERM or KILL")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.CompleteFlag(cmd, "signal", cmdutil.Choices("TERM", "KILL"))
	return cmdutil.Does(cmd, "process.signal", pidSpelling)
}

func runPsKill(ctx context.Context, opts *PsKillOptions) error {
	sig, err := opts.Sandboxes.Signal(ctx, opts.ID, opts.PID, opts.Signal)
	if err != nil {
		return err
	}
	opts.Printer.Note("process %d sent %s", opts.PID, sig)
	return opts.Printer.Print(struct {
		PID    uint32 `json:"pid"`
		Signal string `json:"signal"`
	}{opts.PID, sig}, []string{strconv.FormatUint(uint64(opts.PID), 10)}, nil)
}
