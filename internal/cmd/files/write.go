package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer"
)

// WriteOptions are the inputs of `abx files write`.
type WriteOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID   string
	User string
	Path string
	From string // --from: a local file, or "" (or "-") for stdin
}

// NewCmdWrite builds `abx files write`.
func NewCmdWrite(f *cmdutil.Factory, runF func(context.Context, *WriteOptions) error) *cobra.Command {
	opts := &WriteOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "write ID PATH [--from FILE]",
		Short: "Write a file from stdin, or from a local file",
		Long: `Write stdin, or with --from a local file, to PATH in the sandbox, streamed as it is read.
The file is created, or replaced if it exists; missing parent directories are created.`,
		Example: `  echo hello | abx files write "$id" greeting.txt
  abx files write "$id" /tmp/data.bin --from data.bin`,
		Args: cmdutil.ExactArgs("ID", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = parseArgs(args); err != nil {
				return err
			}
			opts.User, opts.Path = userOf(cmd), args[1]
			if toFile(opts.From) {
				// A file that cannot be sent is refused before the sandbox
				// is asked for anything.
				if err := transfer.CheckReadable(opts.From); err != nil {
					return err
				}
			}
			return cmdutil.Run(cmd, opts, runF, runWrite)
		},
	}
	cmd.Flags().StringVarP(&opts.From, "from", "f", "", "read from this local file instead of stdin")
	return cmdutil.Needs(cmd, provider.FilesRW)
}

func runWrite(ctx context.Context, opts *WriteOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	if toFile(opts.From) {
		cp := &transfer.Copier{Remote: c, Sandbox: opts.ID, NewMeter: meterOn(opts.IO)}
		err = cp.Upload(ctx, opts.From, opts.Path)
	} else {
		err = c.Write(ctx, opts.Path, opts.IO.In)
	}
	if err != nil {
		return err
	}
	opts.Printer.Note("wrote %s", opts.Path)
	return nil
}
