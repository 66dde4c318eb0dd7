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

// ReadOptions are the inputs of `abx files read`.
type ReadOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID   string
	User string
	Path string
	Out  string // --out: a local file, or "" (or "-") for stdout
}

// NewCmdRead builds `abx files read`.
func NewCmdRead(f *cmdutil.Factory, runF func(context.Context, *ReadOptions) error) *cobra.Command {
	opts := &ReadOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "read ID PATH [--out FILE]",
		Short: "Print a file, or save it with --out",
		Long: `Print a file on stdout as it arrives, or with --out save it to a local file: written under
a temporary name beside it and renamed when complete, so an error leaves nothing
half-written. A path that does not exist exits 3.`,
		Example: `  abx files read "$id" /etc/os-release
  abx files read "$id" results.csv --out results.csv`,
		Args: cmdutil.ExactArgs("ID", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = parseArgs(args); err != nil {
				return err
			}
			opts.User, opts.Path = userOf(cmd), args[1]
			if toFile(opts.Out) {
				if err := transfer.CheckWritable(opts.Out); err != nil {
					return err
				}
			}
			return cmdutil.Run(cmd, opts, runF, runRead)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "O", "", "write to this local file instead of stdout (atomically)")
	// The file's own bytes are the output: there is no JSON for --jq.
	return cmdutil.NoJSON(cmdutil.Needs(cmd, provider.FilesRW))
}

func runRead(ctx context.Context, opts *ReadOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	if !toFile(opts.Out) {
		_, err := c.Read(ctx, opts.Path, opts.Printer.Out())
		return err
	}
	cp := &transfer.Copier{Remote: c, Sandbox: opts.ID, NewMeter: meterOn(opts.IO)}
	return cp.Download(ctx, opts.Path, opts.Out)
}

// toFile tells whether --out or --from names a local file: "" and "-" are
// the standard streams.
func toFile(local string) bool { return local != "" && local != "-" }
