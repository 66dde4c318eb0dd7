package files

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer"
)

// CpOptions are the inputs of `abx files cp`.
type CpOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID        string
	User      string
	Download  bool   // SRC is ID:PATH: from the sandbox to this machine
	Remote    string // the path on the ID:PATH side
	Local     string // the path on this machine's side
	Recursive bool
}

// NewCmdCp builds `abx files cp`.
func NewCmdCp(f *cmdutil.Factory, runF func(context.Context, *CpOptions) error) *cobra.Command {
	opts := &CpOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "cp SRC DST [-r]",
		Short: "Copy files between this machine and a sandbox (ID:/path on one side)",
		Long: `Copy a file (or with -r a directory tree) into or out of a sandbox. The remote side is
written ID:PATH, as with docker cp. Downloads land under a temporary name and are
renamed when complete.`,
		Example: `  abx files cp ./data.csv "$id":/tmp/data.csv
  abx files cp "$id":/tmp/results ./results -r`,
		Args: cmdutil.ExactArgs("SRC", "DST"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := parseCp(cmd, opts, args[0], args[1]); err != nil {
				return err
			}
			opts.User = userOf(cmd)
			return cmdutil.Run(cmd, opts, runF, runCp)
		},
	}
	cmd.Flags().BoolVarP(&opts.Recursive, "recursive", "r", false, "copy directories and their contents")
	return cmdutil.Needs(cmd, provider.FilesRW)
}

// parseCp reads SRC and DST into opts: exactly one of them is ID:PATH, and
// a local source must be there to send (a directory only with -r).
func parseCp(cmd *cobra.Command, opts *CpOptions, src, dst string) error {
	srcID, srcPath, srcRemote := SplitRemote(src)
	dstID, dstPath, dstRemote := SplitRemote(dst)
	if srcRemote == dstRemote {
		return cmdutil.UsageError(cmd, "one side of cp must be ID:PATH and the other a local path")
	}
	id := dstID
	opts.Download, opts.Remote, opts.Local = srcRemote, dstPath, srcPath
	if srcRemote {
		id, opts.Remote, opts.Local = srcID, srcPath, dstPath
	}
	var err error
	if opts.ID, err = cmdutil.SandboxID(id); err != nil {
		return err
	}
	if srcPath == "" || dstPath == "" {
		return abxerr.New(abxerr.InvalidInput, "empty path in %q or %q", src, dst)
	}
	if opts.Download {
		return nil
	}
	st, err := os.Stat(opts.Local)
	switch {
	case err != nil:
		return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", opts.Local, transfer.LocalReason(err))
	case !st.IsDir():
		return transfer.CheckReadable(opts.Local)
	case !opts.Recursive:
		return abxerr.New(abxerr.InvalidInput, "%s is a directory", opts.Local).WithHint("add -r to copy directories")
	}
	return nil
}

// SplitRemote reads one side of cp: ID:PATH, with the ID as typed
// (sandbox/ID too, for cmdutil.SandboxID to check), or a local path. A
// local path with a colon can be written ./a:b. Shell completion reads cp's
// arguments with it, so that both agree on which side is remote.
func SplitRemote(s string) (id, p string, remote bool) {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") {
		return "", s, false
	}
	id, p, remote = strings.Cut(s, ":")
	if !remote {
		return "", s, false
	}
	return id, p, true
}

func runCp(ctx context.Context, opts *CpOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	cp := &transfer.Copier{Remote: c, Sandbox: opts.ID, NewMeter: meterOn(opts.IO)}
	if !opts.Download {
		res, err := cp.CopyUp(ctx, opts.Local, opts.Remote, opts.Recursive)
		if err != nil {
			return err
		}
		if res.Tree {
			opts.Printer.Note("copied %d files from %s to %s:%s", res.Files, opts.Local, opts.ID, opts.Remote)
		} else {
			opts.Printer.Note("copied %s to %s:%s", opts.Local, opts.ID, opts.Remote)
		}
		return nil
	}
	res, err := cp.CopyDown(ctx, opts.Remote, opts.Local, opts.Recursive)
	for _, s := range res.Skipped {
		opts.Printer.Note("skipped %s:%s: a symbolic link", opts.ID, s)
	}
	if err != nil {
		return err
	}
	if res.Tree {
		opts.Printer.Note("copied %d files from %s:%s to %s", res.Files, opts.ID, opts.Remote, res.Local)
	} else {
		opts.Printer.Note("copied %s:%s to %s", opts.ID, opts.Remote, res.Local)
	}
	return nil
}
