package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// StatOptions are the inputs of `abx files stat`.
type StatOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID   string
	User string
	Path string
}

// NewCmdStat builds `abx files stat`.
func NewCmdStat(f *cmdutil.Factory, runF func(context.Context, *StatOptions) error) *cobra.Command {
	opts := &StatOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "stat ID PATH",
		Short: "Describe a file or directory",
		Long: `Describe one file or directory: its type, size, modification time, permissions, owner,
group and path. A path that does not exist exits 3.`,
		Example: `  abx files stat "$id" /etc/hostname -o json | jq .size`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = parseArgs(args); err != nil {
				return err
			}
			opts.User, opts.Path = userOf(cmd), args[1]
			return cmdutil.Run(cmd, opts, runF, runStat)
		},
	}
	return cmdutil.Needs(cmd, provider.FilesRW)
}

func runStat(ctx context.Context, opts *StatOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	e, err := c.Stat(ctx, opts.Path)
	if err != nil {
		return err
	}
	// Programs get the entry, not a list of one (docs/json.md, files).
	return printEntries(opts.IO, opts.Printer, e, []envd.Entry{e}, true, false)
}
