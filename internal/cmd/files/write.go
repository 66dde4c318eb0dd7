package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/interrupt"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer"
)

// WriteOptions are the inputs of `abx files write`.
type WriteOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
	From string // --from: a local file, or "" (or "-") for stdin
	// Perm is what the file's permission bits become: --mode's, or
	// transfer.Keep, the bits of the file it replaces.
	Perm transfer.Perm
	// CanExec tells whether the provider runs processes in its sandboxes,
	// which is how a file gets its mode there.
	CanExec func() bool
}

// NewCmdWrite builds `abx files write`.
func NewCmdWrite(f *cmdutil.Factory, runF func(context.Context, *WriteOptions) error) *cobra.Command {
	opts := &WriteOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}, CanExec: func() bool {
		return f.Sandboxes.Supports(provider.ExecRun)
	}}
	cmd := &cobra.Command{
		Use:   "write ID PATH [--from FILE] [--mode MODE]",
		Short: "Write a file from stdin, or from a local file",
		Long: `Write stdin, or with --from a local file, to PATH in the sandbox, streamed as it is read.
The file is created, or replaced if it exists; missing parent directories are created.
The bytes go to a temporary file beside PATH, renamed onto it when complete: a write
that fails or is interrupted leaves PATH as it was.

A replaced file keeps its mode, as with the shell's >; a new one gets 0644. --mode sets
the permission bits, in octal as chmod takes them (755). Stdin on a terminal is read
until Ctrl-D, as cat reads it: abx says so on stderr.`,
		Example: `  echo hello | abx files write "$id" greeting.txt
  abx files write "$id" /tmp/data.bin --from data.bin
  abx files write "$id" run.sh --from run.sh --mode 755`,
		Args: cmdutil.ExactArgs("ID", "PATH"),
	}
	cmd.Flags().StringVarP(&opts.From, "from", "f", "", "read from this local file instead of stdin")
	cmd.Flags().String("mode", "", "permission bits of the file, in octal (755, 0640)")
	return verb(opts, runF, runWrite, cmd, cmdutil.CompleteSandboxFiles(f, 1))
}

func runWrite(ctx context.Context, opts *WriteOptions) error {
	if opts.Perm != transfer.Keep {
		// The sandbox's chmod sets it: it runs processes, or --mode is
		// refused before anything is sent.
		if err := opts.Sandboxes.Check(provider.ExecRun); err != nil {
			return err
		}
	}
	c, err := opts.client(ctx)
	if err != nil {
		return err
	}
	cp := cmdutil.Copier(opts.IO, c, opts.ID, opts.CanExec != nil && opts.CanExec())
	if toFile(opts.From) {
		err = cp.Upload(ctx, opts.From, opts.Path, opts.Perm)
	} else {
		if opts.IO.StdinTTY {
			// A terminal gives no end of its own: say what ends it.
			opts.Printer.Note("reading stdin into %s:%s until Ctrl-D (or give --from FILE)", opts.ID, opts.Path)
		}
		err = cp.Write(ctx, opts.Path, interrupt.Reader(ctx, opts.IO.In), opts.Perm)
	}
	if err != nil {
		return err
	}
	opts.Printer.Note("wrote %s", opts.Path)
	return nil
}

// parse reads the target and --mode, and refuses a --from that cannot be
// sent.
func (opts *WriteOptions) parse(cmd *cobra.Command, args []string) error {
	if fl := cmd.Flags().Lookup("mode"); fl != nil && fl.Changed {
		m, err := transfer.ParseMode("--mode", fl.Value.String())
		if err != nil {
			return err
		}
		opts.Perm = transfer.Bits(m)
	}
	return opts.parseLocal(cmd, args, opts.From, transfer.CheckReadable)
}
