package sandbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ForkOptions are the inputs of `abx fork`.
type ForkOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID      string
	Request sandboxes.ForkRequest
}

// forkNames are the names of `abx fork`, declared once: its command takes
// them, and its group's Verbs lists them.
var forkNames = cmdutil.Names{"fork"}

// NewCmdFork builds `abx fork`.
func NewCmdFork(f *cmdutil.Factory, runF func(context.Context, *ForkOptions) error) *cobra.Command {
	opts := &ForkOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var timeout string
	var metadata []string
	cmd := &cobra.Command{
		Use:   forkNames.Use("ID [flags]"),
		Short: "Clone a running sandbox: a snapshot that keeps it running, then clones",
		Long: `Take a snapshot of a running sandbox, which runs on, then make -n clones of it at once
(at most 8 at a time, 50 in all). Each clone starts with the sandbox's files (and, on a
cluster that keeps it, its memory), its environment and its network rules.

A clone that cannot be made is reported after the others, which are kept; abx then exits
with the first failure's status. The snapshot stays: 'abx create --template SNAPSHOT'
makes more, 'abx snapshot delete' removes it.`,
		Example: `  abx fork "$id" -n 3 -q
  abx fork "$id" --metadata attempt=2 -o json | jq -r '.clones[].sandboxID'`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			if cmd.Flags().Changed("timeout") {
				in := sandboxes.Op("sandbox.fork").Input("timeout")
				if opts.Request.Timeout, err = cmdutil.ParseSeconds("--timeout", timeout, in, "for the service's default"); err != nil {
					return err
				}
			}
			if opts.Request.Metadata, err = cmdutil.ParseKeyValues("--metadata", metadata); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runFork)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&opts.Request.Count, "count", "n", 1, "how many clones to make, 1..50")
	fl.StringVar(&timeout, "timeout", "", "each clone's lifetime, 30s..30d (default 5m)")
	fl.StringArrayVar(&metadata, "metadata", nil, "metadata KEY=VALUE for each clone (repeatable)")
	fl.BoolP("quiet", "q", false, "print only the clones' IDs (as -o name does)")
	cmdutil.AsksBareIDs(cmd, "quiet")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, cmdutil.InState("running"))
	return cmdutil.Does(cmd, "sandbox.fork")
}

func runFork(ctx context.Context, opts *ForkOptions) error {
	if opts.IO.StderrTTY {
		opts.Printer.Note("forking %s...", opts.ID)
	}
	r, err := opts.Sandboxes.Fork(ctx, opts.ID, opts.Request)
	if err != nil {
		return err
	}
	ids := make([]string, len(r.Clones))
	for i, c := range r.Clones {
		ids[i] = c.SandboxID
	}
	opts.Printer.Note("snapshot %s taken of %s; %d of %d clones made", r.SnapshotID, r.SandboxID, len(r.Clones), opts.Request.Count)
	if err := opts.Printer.Print(r, ids, func() error {
		if len(ids) == 0 {
			return nil
		}
		t := opts.Printer.Table("SANDBOX ID", "STATE", "ENDS")
		for _, c := range r.Clones {
			t.Row(c.SandboxID, c.State, opts.IO.Ends(c.EndAt, 0))
		}
		return t.Render()
	}); err != nil {
		return err
	}
	return forkError(r)
}

// forkError sums up the clones a fork could not make in the one error abx
// prints, with the first failure's code.
func forkError(r *sandboxes.Forked) error {
	if len(r.Failed) == 0 {
		return nil
	}
	first := *abxerr.From(r.Failed[0].Err())
	parts := make([]string, len(r.Failed))
	for i, f := range r.Failed {
		parts[i] = f.Error
	}
	first.Message = fmt.Sprintf("%d of %d clones not made: %s", len(r.Failed), len(r.Failed)+len(r.Clones), strings.Join(parts, "; "))
	if first.Hint == "" {
		first.Hint = fmt.Sprintf("the clones made are kept; 'abx create --template %s' makes another", r.SnapshotID)
	}
	return &first
}
