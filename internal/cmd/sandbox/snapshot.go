package sandbox

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// snapshotNames are the names of `abx snapshot`, declared once: its
// command takes them, and its group's Verbs lists them.
var snapshotNames = cmdutil.Names{"snapshot"}

// NewCmdSnapshot builds `abx snapshot` and its commands.
func NewCmdSnapshot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   snapshotNames.Use("<command>"),
		Short: "Take, list and delete snapshots of sandboxes",
		Long: `A snapshot is a sandbox's files (and, on a cluster that keeps them, its memory) at one
moment, kept as a template: 'abx create --template SNAPSHOT' makes a clone of it, and
'abx fork ID' takes one and makes clones at once (docs/snapshots.md).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdSnapshotCreate(f, nil), NewCmdSnapshotList(f, nil), NewCmdSnapshotDelete(f, nil))
	return cmd
}

// SnapshotCreateOptions are the inputs of `abx snapshot create`.
type SnapshotCreateOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID   string
	Opts provider.SnapshotOptions
}

// NewCmdSnapshotCreate builds `abx snapshot create`.
func NewCmdSnapshotCreate(f *cmdutil.Factory, runF func(context.Context, *SnapshotCreateOptions) error) *cobra.Command {
	opts := &SnapshotCreateOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var keepRunning bool
	var ttl, wait string
	var contents []string
	cmd := &cobra.Command{
		Use:   "create ID [flags]",
		Short: "Take a snapshot of a running sandbox",
		Long: `Take a snapshot of a running sandbox and print its ID, which 'abx create --template'
takes to make a clone of it.

The sandbox runs on (--keep-running=false lets the service stop it: the emulator pauses
it). --ttl keeps the snapshot that long (a Go duration, 24h), else until it is deleted.
--contents says what it holds: filesystem, memory, or both (the default: what the
sandbox keeps; the emulator keeps files only). --wait bounds how long the service waits
for it (its default: 60s); a snapshot not ready by then is an error, and may still
appear in 'abx snapshot list' later.`,
		Example: `  snap=$(abx snapshot create "$id" -q)
  abx snapshot create "$id" --ttl 24h -o json
  abx create --template "$snap"`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			op := sandboxes.Op("sandbox.snapshot")
			if cmd.Flags().Changed("keep-running") {
				opts.Opts.KeepRunning = &keepRunning
			}
			if cmd.Flags().Changed("ttl") {
				if opts.Opts.TTL, err = cmdutil.ParseSeconds("--ttl", ttl, op.Input("ttl"), "to keep it until deleted"); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("wait") {
				if opts.Opts.Wait, err = cmdutil.ParseSeconds("--wait", wait, op.Input("wait"), "for the service's default"); err != nil {
					return err
				}
			}
			for _, c := range contents {
				opts.Opts.Contents = append(opts.Opts.Contents, strings.Split(c, ",")...)
			}
			return cmdutil.Run(cmd, opts, runF, runSnapshotCreate)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&keepRunning, "keep-running", true, "let the sandbox run on once the snapshot is taken")
	fl.StringVar(&ttl, "ttl", "", "how long the snapshot is kept, e.g. 24h (default: until deleted)")
	fl.StringArrayVar(&contents, "contents", nil, "what it holds: filesystem, memory (comma-separated or repeated)")
	fl.StringVar(&wait, "wait", "", "how long the service waits for the snapshot (default 60s)")
	fl.BoolP("quiet", "q", false, "print only the snapshot ID (as -o name does)")
	cmdutil.AsksBareIDs(cmd, "quiet")
	cmdutil.CompleteFlag(cmd, "contents", cmdutil.Choices("filesystem", "memory", "filesystem,memory"))
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, cmdutil.InState("running"))
	return cmdutil.Does(cmd, "sandbox.snapshot", "keep_running=--keep-running")
}

func runSnapshotCreate(ctx context.Context, opts *SnapshotCreateOptions) error {
	if opts.IO.StderrTTY {
		opts.Printer.Note("taking a snapshot of %s...", opts.ID)
	}
	start := time.Now()
	snap, err := opts.Sandboxes.Snapshot(ctx, opts.ID, opts.Opts)
	if err != nil {
		return err
	}
	opts.Printer.Note("snapshot %s taken of sandbox %s in %s", snap.SnapshotID, opts.ID, time.Since(start).Round(time.Millisecond))
	return opts.Printer.Print(snap, []string{snap.SnapshotID}, func() error { return opts.Printer.Line(snap.SnapshotID) })
}

// SnapshotListOptions are the inputs of `abx snapshot list`.
type SnapshotListOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	List provider.SnapshotListOptions
}

// NewCmdSnapshotList builds `abx snapshot list`.
func NewCmdSnapshotList(f *cmdutil.Factory, runF func(context.Context, *SnapshotListOptions) error) *cobra.Command {
	opts := &SnapshotListOptions{Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:     "list [flags]",
		Aliases: []string{"ls"},
		Short:   "List snapshots",
		Long: `List the snapshots the service keeps, oldest first: all, or one sandbox's (--sandbox).
-o name prints their IDs, which 'abx create --template' and 'abx snapshot delete' take.`,
		Example: `  abx snapshot list --sandbox "$id"
  abx snapshot list -o name | xargs abx snapshot delete`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.List.SandboxID != "" {
				id, err := cmdutil.SandboxID(opts.List.SandboxID)
				if err != nil {
					return err
				}
				opts.List.SandboxID = id
			}
			return cmdutil.Run(cmd, opts, runF, runSnapshotList)
		},
	}
	cmd.Flags().StringVar(&opts.List.SandboxID, "sandbox", "", "only the snapshots of this sandbox")
	cmd.Flags().IntVar(&opts.List.Limit, "limit", 0, "list at most this many (default: all)")
	cmdutil.CompleteFlag(cmd, "sandbox", cmdutil.CompleteSandbox(f, nil))
	return cmdutil.Does(cmd, "snapshots.list", "sandbox=--sandbox")
}

func runSnapshotList(ctx context.Context, opts *SnapshotListOptions) error {
	list, err := opts.Sandboxes.Snapshots(ctx, opts.List)
	if err != nil {
		return err
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.SnapshotID
	}
	return opts.Printer.Print(list, names, func() error {
		if len(list) == 0 {
			opts.Printer.Note("no snapshots")
			return nil
		}
		t := opts.Printer.Table("SNAPSHOT ID")
		for _, s := range list {
			t.Row(s.SnapshotID)
		}
		return t.Render()
	})
}

// SnapshotDeleteOptions are the inputs of `abx snapshot delete`.
type SnapshotDeleteOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	IDs []string
}

// NewCmdSnapshotDelete builds `abx snapshot delete`.
func NewCmdSnapshotDelete(f *cmdutil.Factory, runF func(context.Context, *SnapshotDeleteOptions) error) *cobra.Command {
	opts := &SnapshotDeleteOptions{Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:     "delete SNAPSHOT...",
		Aliases: []string{"rm"},
		Short:   "Delete snapshots",
		Long: `Delete snapshots. The service answers a snapshot that is not there as one deleted, so
deleting one twice succeeds. Sandboxes cloned from a snapshot are not affected.`,
		Example: `  abx snapshot delete "$snap"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.ArgsError(cmd, args, 1, []string{"SNAPSHOT..."})
			}
			for _, a := range args {
				if err := provider.CheckSnapshotID(a); err != nil {
					return err.WithHint("pass a snapshot ID as 'abx snapshot list' shows it")
				}
			}
			opts.IDs = args
			return cmdutil.Run(cmd, opts, runF, runSnapshotDelete)
		},
	}
	cmd.ValidArgsFunction = completeSnapshots(f)
	return cmdutil.Does(cmd, "snapshots.delete", "snapshot=SNAPSHOT#0")
}

func runSnapshotDelete(ctx context.Context, opts *SnapshotDeleteOptions) error {
	type deleted struct {
		SnapshotID string `json:"snapshotID"`
		Deleted    bool   `json:"deleted"`
	}
	out := make([]deleted, 0, len(opts.IDs))
	for _, id := range opts.IDs {
		if err := opts.Sandboxes.DeleteSnapshot(ctx, id); err != nil {
			return err
		}
		opts.Printer.Note("snapshot %s deleted", id)
		out = append(out, deleted{SnapshotID: id, Deleted: true})
	}
	return opts.Printer.Print(out, opts.IDs, nil)
}

// completeSnapshots completes snapshot IDs from the service's listing.
func completeSnapshots(f *cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		list, err := f.Sandboxes.Snapshots(cmd.Context(), provider.SnapshotListOptions{Limit: 1000})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = s.SnapshotID
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
