package files

import (
	"context"
	"io"
	"sync"

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
	// Mode is --mode as given, the file's permission bits in octal; nil
	// for those of the file it replaces.
	Mode *string
}

// NewCmdWrite builds `abx files write`.
func NewCmdWrite(f *cmdutil.Factory, runF func(context.Context, *WriteOptions) error) *cobra.Command {
	opts := &WriteOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
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
	return verb(opts, runF, runWrite, cmd, cmdutil.CompleteSandboxFiles(f, 1), "files.write", "path=PATH")
}

func runWrite(ctx context.Context, opts *WriteOptions) error {
	var r io.Reader
	if toFile(opts.From) {
		fh, err := transfer.OpenLocal(opts.From)
		if err != nil {
			return err
		}
		defer func() { _ = fh.Close() }()
		var size int64
		if st, err := fh.Stat(); err == nil {
			size = st.Size()
		}
		m := opts.IO.NewProgress(opts.Path, size)
		defer m.Done()
		r = m.Reader(fh)
	} else {
		r = interrupt.Reader(ctx, opts.IO.In)
		if opts.IO.StdinTTY {
			// A terminal gives no end of its own: say what ends it, once
			// the operation reads it (after its checks).
			r = &firstRead{Reader: r, before: func() {
				opts.Printer.Note("reading stdin into %s:%s until Ctrl-D (or give --from FILE)", opts.ID, opts.Path)
			}}
		}
	}
	if err := opts.Sandboxes.WriteFile(ctx, opts.ID, opts.User, opts.Path, opts.Mode, r); err != nil {
		return err
	}
	opts.Printer.Note("wrote %s", opts.Path)
	return nil
}

// firstRead calls before once, as the first read of its Reader begins.
type firstRead struct {
	io.Reader
	once   sync.Once
	before func()
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(f.before)
	return f.Reader.Read(p)
}

// parse reads the target and --mode, and refuses a --from that cannot be
// sent.
func (opts *WriteOptions) parse(cmd *cobra.Command, args []string) error {
	if fl := cmd.Flags().Lookup("mode"); fl.Changed {
		mode := fl.Value.String()
		opts.Mode = &mode
	}
	return opts.parseLocal(cmd, args, opts.From, transfer.CheckReadable)
}
