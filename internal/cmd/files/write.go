package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/interrupt"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// WriteOptions are the inputs of `abx files write`.
type WriteOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
	From string // --from: a local file, or "" (or "-") for stdin
}

// NewCmdWrite builds `abx files write`.
func NewCmdWrite(f *cmdutil.Factory, runF func(context.Context, *WriteOptions) error) *cobra.Command {
	opts := &WriteOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	cmd := &cobra.Command{
		Use:   "write ID PATH [--from FILE]",
		Short: "Write a file from stdin, or from a local file",
		Long: `Write stdin, or with --from a local file, to PATH in the sandbox, streamed as it is read.
The file is created, or replaced if it exists; missing parent directories are created.
The bytes go to a temporary file beside PATH, renamed onto it when complete: a write
that fails or is interrupted leaves PATH as it was.`,
		Example: `  echo hello | abx files write "$id" greeting.txt
  abx files write "$id" /tmp/data.bin --from data.bin`,
		Args: cmdutil.ExactArgs("ID", "PATH"),
	}
	cmd.Flags().StringVarP(&opts.From, "from", "f", "", "read from this local file instead of stdin")
	return verb(opts, runF, runWrite, cmd, cmdutil.CompleteSandboxFiles(f, 1))
}

func runWrite(ctx context.Context, opts *WriteOptions) error {
	c, err := opts.client(ctx)
	if err != nil {
		return err
	}
	if toFile(opts.From) {
		err = cmdutil.Copier(opts.IO, c, opts.ID).Upload(ctx, opts.From, opts.Path)
	} else {
		err = transfer.Put(ctx, c, opts.Path, interrupt.Reader(ctx, opts.IO.In))
	}
	if err != nil {
		return err
	}
	opts.Printer.Note("wrote %s", opts.Path)
	return nil
}

// parse reads the target, and refuses a --from that cannot be sent.
func (opts *WriteOptions) parse(cmd *cobra.Command, args []string) error {
	return opts.parseLocal(cmd, args, opts.From, transfer.CheckReadable)
}
