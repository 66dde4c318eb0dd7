package files

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// LsOptions are the inputs of `abx files ls`: target.Path is "." without
// PATH, the user's home.
type LsOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
	Long  bool
	Depth int
}

// NewCmdLs builds `abx files ls`.
func NewCmdLs(f *cmdutil.Factory, runF func(context.Context, *LsOptions) error) *cobra.Command {
	opts := &LsOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	cmd := &cobra.Command{
		Use:   "ls ID [PATH]",
		Short: "List a directory",
		Long: `List a directory (the user's home without PATH): each entry's name, type (file, dir,
symlink), size and modification time. -l adds permissions, owner, group and the full
path; --depth N lists subdirectories too, N levels down, each entry by its path. A file
is listed as itself, as ls lists it: its one row, under the PATH given.`,
		Example: `  abx files ls "$id"
  abx files ls "$id" /tmp -l --depth 2
  abx files ls "$id" -o json | jq -r '.[] | select(.type=="file") | .path'`,
		Args: cmdutil.RangeArgs(1, "ID", "[PATH]"),
	}
	cmd.Flags().BoolVarP(&opts.Long, "long", "l", false, "show permissions, owner and group")
	// An int, not the wire's uint32: -1 is read as -1 and refused, never
	// wrapped to the whole tree.
	cmd.Flags().IntVar(&opts.Depth, "depth", 1, "levels of subdirectories to list")
	cmdutil.Bounded(cmd.Flags().Lookup("depth"), sandboxes.Op("files.list").Input("depth"))
	return verb(opts, runF, runLs, cmd, cmdutil.CompleteSandboxFiles(f, 1), "files.list", "path=PATH")
}

func runLs(ctx context.Context, opts *LsOptions) error {
	list, err := opts.Sandboxes.ListDir(ctx, opts.ID, opts.User, opts.Path, opts.Depth)
	if hasCode(err, abxerr.Rejected) {
		// Not a directory: a file named on its own is listed as itself,
		// as ls lists it, under the name it was given.
		if e, serr := opts.Sandboxes.Stat(ctx, opts.ID, opts.User, opts.Path); serr == nil && e.Type != "dir" {
			shown := e
			shown.Name = opts.Path
			return printEntries(opts.IO, opts.Printer, []envd.Entry{e}, []envd.Entry{shown}, opts.Long, false)
		}
	}
	if err != nil {
		return err
	}
	return printEntries(opts.IO, opts.Printer, list, list, opts.Long, opts.Depth > 1)
}

// printEntries prints asJSON for programs (docs/json.md, files), the
// entries' paths for -o name, or a table of them: name, type, size and
// modification time, and with long (or -o wide) permissions, owner, group
// and path. byPath names each entry by its path, as a listing of several
// levels must.
func printEntries(io *output.Streams, p *output.Printer, asJSON any, list []envd.Entry, long, byPath bool) error {
	paths := make([]string, len(list))
	for i, e := range list {
		paths[i] = e.Path
	}
	return p.Print(asJSON, paths, func() error {
		t := p.Table("name", "type", "size", "modified").
			WithWide(long, "permissions", "owner", "group", "path")
		for _, e := range list {
			name := e.Name
			if byPath {
				name = e.Path
			}
			t.Row(name, e.Type, strconv.FormatInt(e.Size, 10), io.Time(e.ModifiedTime),
				output.Dash(e.Permissions), output.Dash(e.Owner), output.Dash(e.Group), e.Path)
		}
		return t.Render()
	})
}
