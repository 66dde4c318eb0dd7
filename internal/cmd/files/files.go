package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// FilesOptions are the inputs of the `abx files` commands.
type FilesOptions struct {
	IO     *output.Streams
	Envd   func(ctx context.Context, id, user string) (*envd.Client, error)
	Format output.Format

	ID        string
	User      string
	Long      bool
	Depth     int
	Local     string // --out / --from
	Recursive bool
}

// NewCmdFiles builds `abx files`.
func NewCmdFiles(f *Factory) *cobra.Command {
	opts := &FilesOptions{IO: f.IO, Envd: f.EnvdClient}
	files := &cobra.Command{
		Use:   "files",
		Short: "Read, write and move files in a sandbox",
		Long: `Work with a sandbox's files. Remote paths are absolute, or relative to the user's home.
Transfers stream: nothing is held whole in memory, and a local file is written to a
temporary name and renamed only when complete, so an error leaves nothing half-written.`,
		Example: `  abx files ls "$id"
  echo 'print("hi")' | abx files write "$id" hello.py
  abx files read "$id" hello.py
  abx files cp "$id":results ./results -r`,
	}
	files.PersistentFlags().StringVarP(&opts.User, "user", "u", "", `Linux user whose permissions apply (default "user")`)

	with := func(use, short, example string, args []string, run func(ctx context.Context, c *envd.Client, a []string) error) *cobra.Command {
		cmd := &cobra.Command{
			Use: use, Short: short, Example: example, Args: exactArgs(args...),
			RunE: func(cmd *cobra.Command, a []string) error {
				opts.Format, opts.ID = f.Format, a[0]
				if err := checkIDs(opts.ID); err != nil {
					return err
				}
				for _, p := range a[1:] {
					if p == "" {
						return abxerr.New(abxerr.InvalidInput, "empty path").WithHint("give an absolute path, or one relative to the user's home")
					}
				}
				c, err := opts.Envd(cmd.Context(), opts.ID, opts.User)
				if err != nil {
					return err
				}
				return run(cmd.Context(), c, a[1:])
			},
		}
		return needs(cmd, provider.FilesRW)
	}

	ls := with("ls ID [PATH]", "List a directory", `  abx files ls "$id"
  abx files ls "$id" /tmp -l --depth 2
  abx files ls "$id" -o json | jq -r '.[] | select(.type=="file") | .path'`, nil,
		func(ctx context.Context, c *envd.Client, a []string) error {
			dir := "."
			if len(a) > 0 {
				dir = a[0]
			}
			list, err := c.ListDir(ctx, dir, opts.Depth)
			if err != nil {
				return err
			}
			return printEntries(opts, list)
		})
	ls.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) < 1 || len(args) > 2 {
			return argsError(cmd, len(args), []string{"ID", "[PATH]"})
		}
		return nil
	}
	ls.Flags().BoolVarP(&opts.Long, "long", "l", false, "show permissions, owner and group")
	ls.Flags().IntVar(&opts.Depth, "depth", 1, "levels of subdirectories to list")

	stat := with("stat ID PATH", "Describe a file or directory", `  abx files stat "$id" /etc/hostname -o json | jq .size`, []string{"ID", "PATH"},
		func(ctx context.Context, c *envd.Client, a []string) error {
			e, err := c.Stat(ctx, a[0])
			if err != nil {
				return err
			}
			if opts.Format == output.JSON {
				return output.WriteJSON(opts.IO.Out, e)
			}
			opts.Long = true
			return printEntries(opts, []envd.Entry{e})
		})

	read := with("read ID PATH [--out FILE]", "Print a file, or save it with --out", `  abx files read "$id" /etc/os-release
  abx files read "$id" results.csv --out results.csv`, []string{"ID", "PATH"},
		func(ctx context.Context, c *envd.Client, a []string) error {
			if opts.Local == "" || opts.Local == "-" {
				_, err := c.Read(ctx, a[0], opts.IO.Out)
				return err
			}
			return download(ctx, c, opts.IO, a[0], opts.Local)
		})
	read.Flags().StringVarP(&opts.Local, "out", "O", "", "write to this local file instead of stdout (atomically)")
	read.Annotations[annotNoJSON] = "true" // the file's own bytes

	write := with("write ID PATH [--from FILE]", "Write a file from stdin, or from a local file", `  echo hello | abx files write "$id" greeting.txt
  abx files write "$id" /tmp/data.bin --from data.bin`, []string{"ID", "PATH"},
		func(ctx context.Context, c *envd.Client, a []string) error {
			if opts.Local != "" && opts.Local != "-" {
				fh, err := openLocal(opts.Local)
				if err != nil {
					return err
				}
				defer func() { _ = fh.Close() }()
				if err := upload(ctx, c, opts.IO, fh, a[0]); err != nil {
					return err
				}
			} else if err := c.Write(ctx, a[0], opts.IO.In); err != nil {
				return err
			}
			note(opts.IO, opts.Format, "wrote %s", a[0])
			return nil
		})
	write.Flags().StringVarP(&opts.Local, "from", "f", "", "read from this local file instead of stdin")

	mkdir := with("mkdir ID PATH", "Create a directory and its parents", `  abx files mkdir "$id" work/out`, []string{"ID", "PATH"},
		func(ctx context.Context, c *envd.Client, a []string) error {
			e, err := c.MakeDir(ctx, a[0])
			if err != nil {
				return err
			}
			note(opts.IO, opts.Format, "created %s", e.Path)
			return printEntry(opts, e)
		})
	mv := with("mv ID SOURCE DESTINATION", "Move or rename a file or directory", `  abx files mv "$id" out.txt archive/out.txt`, []string{"ID", "SOURCE", "DESTINATION"},
		func(ctx context.Context, c *envd.Client, a []string) error {
			e, err := c.Move(ctx, a[0], a[1])
			if err != nil {
				return err
			}
			note(opts.IO, opts.Format, "moved %s to %s", a[0], e.Path)
			return printEntry(opts, e)
		})
	rm := with("rm ID PATH", "Remove a file or a directory with its contents", `  abx files rm "$id" /tmp/scratch`, []string{"ID", "PATH"},
		func(ctx context.Context, c *envd.Client, a []string) error {
			if err := c.Remove(ctx, a[0]); err != nil {
				return err
			}
			note(opts.IO, opts.Format, "removed %s", a[0])
			return nil
		})

	ls.Long = `List a directory (the user's home without PATH): each entry's name, type (file, dir,
symlink), size and modification time. -l adds permissions, owner, group and the full
path; --depth N lists subdirectories too, N levels down, each entry by its path.`
	stat.Long = `Describe one file or directory: its type, size, modification time, permissions, owner,
group and path. A path that does not exist exits 3.`
	read.Long = `Print a file on stdout as it arrives, or with --out save it to a local file: written under
a temporary name beside it and renamed when complete, so an error leaves nothing
half-written. A path that does not exist exits 3.`
	write.Long = `Write stdin, or with --from a local file, to PATH in the sandbox, streamed as it is read.
The file is created, or replaced if it exists; missing parent directories are created.`
	mkdir.Long = `Create a directory and any missing parents. A directory that already exists is refused
by the sandbox (exit 1).`
	mv.Long = `Move or rename a file or directory inside the sandbox. DESTINATION is the new path, not
a directory to move into.`
	rm.Long = `Remove a file, or a directory and everything in it. Removing a path that does not exist
succeeds.`

	cp := &cobra.Command{
		Use:   "cp SRC DST [-r]",
		Short: "Copy files between this machine and a sandbox (ID:/path on one side)",
		Long: `Copy a file (or with -r a directory tree) into or out of a sandbox. The remote side is
written ID:PATH, as with docker cp. Downloads land under a temporary name and are
renamed when complete.`,
		Example: `  abx files cp ./data.csv "$id":/tmp/data.csv
  abx files cp "$id":/tmp/results ./results -r`,
		Args: exactArgs("SRC", "DST"),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Format = f.Format
			srcID, srcPath, srcRemote := splitRemote(a[0])
			dstID, dstPath, dstRemote := splitRemote(a[1])
			switch {
			case srcRemote == dstRemote:
				return usageError(cmd, "one side of cp must be ID:PATH and the other a local path")
			case srcRemote:
				opts.ID = srcID
			default:
				opts.ID = dstID
			}
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			if srcPath == "" || dstPath == "" {
				return abxerr.New(abxerr.InvalidInput, "empty path in %q or %q", a[0], a[1])
			}
			if !srcRemote {
				if _, err := os.Stat(srcPath); err != nil {
					return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", srcPath, localReason(err))
				}
			}
			c, err := opts.Envd(cmd.Context(), opts.ID, opts.User)
			if err != nil {
				return err
			}
			if srcRemote {
				return copyDown(cmd.Context(), c, opts, srcPath, dstPath)
			}
			return copyUp(cmd.Context(), c, opts, srcPath, dstPath)
		},
	}
	cp.Flags().BoolVarP(&opts.Recursive, "recursive", "r", false, "copy directories and their contents")
	files.AddCommand(ls, stat, read, write, mkdir, mv, rm, needs(cp, provider.FilesRW))
	return files
}

// splitRemote reads ID:PATH. A local path with a colon can be written ./a:b.
func splitRemote(s string) (id, p string, remote bool) {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") {
		return "", s, false
	}
	id, p, remote = strings.Cut(s, ":")
	if !remote {
		return "", s, false
	}
	return id, p, true
}

func printEntry(opts *FilesOptions, e envd.Entry) error {
	if opts.Format == output.JSON {
		return output.WriteJSON(opts.IO.Out, e)
	}
	return nil
}

func printEntries(opts *FilesOptions, list []envd.Entry) error {
	switch opts.Format {
	case output.JSON:
		return output.WriteJSON(opts.IO.Out, list)
	case output.Name:
		for _, e := range list {
			if _, err := fmt.Fprintln(opts.IO.Out, e.Path); err != nil {
				return err
			}
		}
		return nil
	}
	header := []string{"name", "type", "size", "modified"}
	if opts.Long || opts.Format == output.Wide {
		header = append(header, "permissions", "owner", "group", "path")
	}
	t := opts.IO.NewTable(header...)
	for _, e := range list {
		name := e.Name
		if opts.Depth > 1 {
			name = e.Path
		}
		row := []string{name, e.Type, strconv.FormatInt(e.Size, 10), opts.IO.Time(e.ModifiedTime)}
		if len(header) > 4 {
			row = append(row, dash(e.Permissions), dash(e.Owner), dash(e.Group), e.Path)
		}
		t.Row(row...)
	}
	return t.Render()
}

func openLocal(p string) (*os.File, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", p, localReason(err))
	}
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		_ = fh.Close()
		return nil, abxerr.New(abxerr.InvalidInput, "%s is a directory", p).WithHint("use 'abx files cp -r' for directories")
	}
	return fh, nil
}

func localReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// download writes a remote file to local with a meter on a terminal.
func download(ctx context.Context, c *envd.Client, streams *output.Streams, remote, local string) error {
	return writeLocal(local, func(w io.Writer) error {
		meter := streams.NewProgress(remote, 0)
		defer meter.Done()
		_, err := c.Read(ctx, remote, meter.Writer(w))
		return err
	})
}

// writeLocal fills a local file through a temporary file in the same
// directory, renamed into place at the end: a reader never sees half a
// file, and an error leaves nothing behind.
func writeLocal(local string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(local), "."+filepath.Base(local)+".abx-*")
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, localReason(err)).
			WithHint("choose a destination in a directory you can write to; nothing was written")
	}
	// CreateTemp makes the file private; give it an ordinary file's mode.
	err = tmp.Chmod(0o644)
	if err == nil {
		err = fill(tmp)
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, cerr)
	}
	if err == nil {
		if rerr := os.Rename(tmp.Name(), local); rerr != nil {
			err = abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, localReason(rerr))
		}
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// upload writes a local file to remote with a meter on a terminal.
func upload(ctx context.Context, c *envd.Client, streams *output.Streams, fh *os.File, remote string) error {
	var size int64
	if st, err := fh.Stat(); err == nil {
		size = st.Size()
	}
	meter := streams.NewProgress(remote, size)
	defer meter.Done()
	return c.Write(ctx, remote, meter.Reader(fh))
}

func copyUp(ctx context.Context, c *envd.Client, opts *FilesOptions, local, remote string) error {
	st, err := os.Stat(local)
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", local, localReason(err))
	}
	if !st.IsDir() {
		fh, err := openLocal(local)
		if err != nil {
			return err
		}
		defer func() { _ = fh.Close() }()
		if err := upload(ctx, c, opts.IO, fh, remote); err != nil {
			return err
		}
		note(opts.IO, opts.Format, "copied %s to %s:%s", local, opts.ID, remote)
		return nil
	}
	if !opts.Recursive {
		return abxerr.New(abxerr.InvalidInput, "%s is a directory", local).WithHint("add -r to copy directories")
	}
	n := 0
	err = filepath.WalkDir(local, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", p, localReason(err))
		}
		rel, _ := filepath.Rel(local, p)
		target := path.Join(remote, filepath.ToSlash(rel))
		if d.IsDir() {
			if _, err := c.MakeDir(ctx, target); err != nil && abxerr.From(err).Code != abxerr.Rejected {
				return err
			}
			return nil
		}
		fh, err := openLocal(p)
		if err != nil {
			return err
		}
		defer func() { _ = fh.Close() }()
		n++
		return upload(ctx, c, opts.IO, fh, target)
	})
	if err != nil {
		return err
	}
	note(opts.IO, opts.Format, "copied %d files from %s to %s:%s", n, local, opts.ID, remote)
	return nil
}

func copyDown(ctx context.Context, c *envd.Client, opts *FilesOptions, remote, local string) error {
	e, err := c.Stat(ctx, remote)
	if err != nil {
		return err
	}
	if e.Type != "dir" {
		if st, err := os.Stat(local); err == nil && st.IsDir() {
			local = filepath.Join(local, e.Name)
		}
		if err := download(ctx, c, opts.IO, remote, local); err != nil {
			return err
		}
		note(opts.IO, opts.Format, "copied %s:%s to %s", opts.ID, remote, local)
		return nil
	}
	if !opts.Recursive {
		return abxerr.New(abxerr.InvalidInput, "%s:%s is a directory", opts.ID, remote).WithHint("add -r to copy directories")
	}
	list, err := c.ListDir(ctx, remote, 1<<16)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(local, 0o755); err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", local, localReason(err))
	}
	n := 0
	for _, item := range list {
		rel := strings.TrimPrefix(strings.TrimPrefix(item.Path, e.Path), "/")
		target := filepath.Join(local, filepath.FromSlash(rel))
		switch item.Type {
		case "dir":
			if err := os.MkdirAll(target, 0o755); err != nil {
				return abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", target, localReason(err))
			}
		case "file":
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", target, localReason(err))
			}
			if err := download(ctx, c, opts.IO, item.Path, target); err != nil {
				return err
			}
			n++
		}
	}
	note(opts.IO, opts.Format, "copied %d files from %s:%s to %s", n, opts.ID, remote, local)
	return nil
}
