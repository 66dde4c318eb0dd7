package process

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// PsKillOptions are the inputs of `abx ps kill`.
type PsKillOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID   string
	PID  uint32
	Kill bool // SIGKILL instead of SIGTERM
}

// NewCmdPsKill builds `abx ps kill`.
func NewCmdPsKill(f *cmdutil.Factory, runF func(context.Context, *PsKillOptions) error) *cobra.Command {
	opts := &PsKillOptions{Printer: f.Printer, Sandboxes: f.Sandboxes}
	var signal string
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
			switch strings.TrimPrefix(strings.ToUpper(signal), "SIG") {
			case "TERM", "15":
				opts.Kill = false
			case "KILL", "9":
				opts.Kill = true
			default:
				return abxerr.New(abxerr.InvalidInput, "invalid --signal %q", signal).
					WithHint("envd delivers TERM (15) and KILL (9) only")
			}
			return cmdutil.Run(cmd, opts, runF, runPsKill)
		},
	}
	cmd.Flags().StringVarP(&signal, "signal", "s", "TERM", "TERM or KILL")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.CompleteFlag(cmd, "signal", cmdutil.Choices("TERM", "KILL"))
	return cmdutil.Needs(cmd, provider.ProcessManage)
}

func runPsKill(ctx context.Context, opts *PsKillOptions) error {
	c, err := opts.Sandboxes.Envd(ctx, opts.ID, "", provider.ProcessManage)
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
	opts.Printer.Note("process %d sent %s", opts.PID, sig)
	return opts.Printer.Print(struct {
		PID    uint32 `json:"pid"`
		Signal string `json:"signal"`
	}{opts.PID, sig}, []string{strconv.FormatUint(uint64(opts.PID), 10)}, nil)
}
