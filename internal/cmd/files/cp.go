package files

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// CpOptions are the inputs of `abx files cp`: target.Path is the path on
// the ID:PATH side.
type CpOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
	Download  bool   // SRC is ID:PATH: from the sandbox to this machine
	Local     string // the path on this machine's side
	Recursive bool
}

// NewCmdCp builds `abx files cp`.
func NewCmdCp(f *cmdutil.Factory, runF func(context.Context, *CpOptions) error) *cobra.Command {
	opts := &CpOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	cmd := &cobra.Command{
		Use:   "cp SRC DST [-r]",
		Short: "Copy files between this machine and a sandbox (ID:/path on one side)",
		Long: `Copy a file (or with -r a directory tree) into or out of a sandbox. The remote side is
written ID:PATH, as with docker cp. Each file, in either direction, lands under a
temporary name beside its destination and is renamed when complete: a copy that fails
or is interrupted leaves no half file.

Where it lands follows cp: a destination that is a directory, or ends in /, receives the
file or the tree under its own name (cp -r ID:out ./down with ./down there makes
./down/out); SRC/. copies a tree's contents into the destination. Symbolic links in a
tree are not followed: an upload makes the links that stay inside the tree as links and
leaves out those that lead out of it, a download leaves them all out, each with a note.

Permission bits are kept both ways, as docker cp keeps them: a script copied in runs
there. A download's are cut by the umask, and never carry setuid, setgid or sticky bits;
modification times are not kept.`,
		Example: `  abx files cp ./data.csv "$id":/tmp/data.csv
  abx files cp ./data.csv "$id":/tmp/
  abx files cp "$id":/tmp/results ./results -r
  abx files cp ./src/. "$id":work -r`,
		Args: cmdutil.ExactArgs("SRC", "DST"),
	}
	cmd.Flags().BoolVarP(&opts.Recursive, "recursive", "r", false, "copy directories and their contents")
	return verb(opts, runF, runCp, cmd, completeCopy(f), "files.copy")
}

func runCp(ctx context.Context, opts *CpOptions) error {
	cp, err := opts.Sandboxes.Copier(ctx, opts.ID, opts.User, opts.Path)
	if err != nil {
		return err
	}
	cp = cmdutil.Metered(opts.IO, cp)
	var res transfer.Result
	if opts.Download {
		res, err = cp.CopyDown(ctx, opts.Path, opts.Local, opts.Recursive)
	} else {
		res, err = cp.CopyUp(ctx, opts.Local, opts.Path, opts.Recursive)
	}
	cmdutil.NoteSkipped(opts.Printer, res)
	if err != nil {
		return err
	}
	from, to := res.Local, opts.ID+":"+res.Remote
	if opts.Download {
		from, to = to, from
	}
	noteCopied(opts.Printer, res, from, to)
	return nil
}

// noteCopied tells people what a copy did, naming its sides as cp's
// arguments write them (ID:PATH for the sandbox's), once the destination
// rules have placed it.
func noteCopied(p *output.Printer, res transfer.Result, from, to string) {
	if res.Tree {
		p.Note("copied %s from %s to %s", cmdutil.Carried(res), from, to)
		return
	}
	p.Note("copied %s to %s", from, to)
}

// parse reads SRC and DST: exactly one of them is ID:PATH, and a local
// source must be there to send (a directory only with -r).
func (opts *CpOptions) parse(cmd *cobra.Command, args []string) error {
	src, dst := args[0], args[1]
	srcID, srcPath, srcRemote := SplitRemote(src)
	dstID, dstPath, dstRemote := SplitRemote(dst)
	if srcRemote == dstRemote {
		return cmdutil.UsageError(cmd, "one side of cp must be ID:PATH and the other a local path")
	}
	id := dstID
	opts.Download, opts.Path, opts.Local = srcRemote, dstPath, srcPath
	if srcRemote {
		id, opts.Path, opts.Local = srcID, srcPath, dstPath
	}
	// The ID, the user and the remote path are the copy's to check
	// (Service.Copier), before it sends anything; an empty side is cp's
	// own syntax.
	opts.ID, opts.User = cmdutil.SandboxArg(id), userOf(cmd)
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

// completeCopy completes cp's SRC and DST: "ID:" for the remote side, then
// the path after the colon. A side that is not remote is a local path,
// left to the shell's own file completion.
func completeCopy(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= 2 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) == 1 {
			if _, _, remote := SplitRemote(args[0]); remote {
				return nil, cobra.ShellCompDirectiveDefault
			}
		}
		if id, p, remote := SplitRemote(toComplete); remote {
			return cmdutil.RemotePaths(cmd, f, id, id+":", p)
		}
		ids := cmdutil.SandboxCandidates(cmd, f, toComplete, ":", nil, nil)
		if len(ids) == 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return ids, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	}
}
