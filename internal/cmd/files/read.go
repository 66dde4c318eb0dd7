package files

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// ReadOptions are the inputs of `abx files read`.
type ReadOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
	Out string // --out: a local file, or "" (or "-") for stdout
}

// NewCmdRead builds `abx files read`.
func NewCmdRead(f *cmdutil.Factory, runF func(context.Context, *ReadOptions) error) *cobra.Command {
	opts := &ReadOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	cmd := &cobra.Command{
		Use:   "read ID PATH [--out FILE]",
		Short: "Print a file, or save it with --out",
		Long: `Print a file on stdout as it arrives, or with --out save it to a local file: written under
a temporary name beside it and renamed when complete, so an error leaves nothing
half-written. A path that does not exist exits 3.

On a terminal, only text is printed, as curl does: a file that is not UTF-8 text
without controls (a binary file, an escape sequence that could retitle or clear the
terminal) in its first 8 KiB is refused with exit 2 before any of it is written; one
that turns into something else later stops there, with the same error. --out - prints
it anyway; a pipe gets the bytes as they are.`,
		Example: `  abx files read "$id" /etc/os-release
  abx files read "$id" results.csv --out results.csv`,
		Args: cmdutil.ExactArgs("ID", "PATH"),
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "O", "", `write to this local file instead of stdout (atomically); "-" for stdout, even on a terminal for what is not text`)
	// The file's own bytes are the output: there is no JSON for --jq.
	return cmdutil.NoJSON(verb(opts, runF, runRead, cmd, cmdutil.CompleteSandboxFiles(f, 1), "files.read", "path=PATH"))
}

func runRead(ctx context.Context, opts *ReadOptions) error {
	if toFile(opts.Out) {
		// A local file is written as every copy writes one: under a
		// temporary name renamed when complete, with a meter.
		cp, err := opts.Sandboxes.Copier(ctx, opts.ID, opts.User, opts.Path)
		if err != nil {
			return err
		}
		return cmdutil.Metered(opts.IO, cp).Download(ctx, opts.Path, opts.Out)
	}
	if opts.Out == "-" || !opts.IO.StdoutTTY {
		_, err := opts.Sandboxes.ReadFile(ctx, opts.ID, opts.User, opts.Path, opts.Printer.Out())
		return err
	}
	// A terminal takes text only, unless --out - asked for the bytes.
	guard := output.NewTextOnly(opts.Printer.Out())
	_, err := opts.Sandboxes.ReadFile(ctx, opts.ID, opts.User, opts.Path, guard)
	if err == nil {
		err = guard.Flush()
	}
	if errors.Is(err, output.ErrNotText) {
		return abxerr.New(abxerr.InvalidInput, "%s:%s is not text: abx does not print it on a terminal", opts.ID, opts.Path).
			WithHint("save it with --out FILE, or add --out - to print it anyway")
	}
	return err
}

// parse reads the target, and refuses an --out that could not be written.
func (opts *ReadOptions) parse(cmd *cobra.Command, args []string) error {
	return opts.parseLocal(cmd, args, opts.Out, transfer.CheckWritable)
}

// parseLocal reads the target, then refuses with check a local file (--out,
// --from) that cannot be used, before the sandbox is asked for anything.
func (t *target) parseLocal(cmd *cobra.Command, args []string, local string, check func(string) error) error {
	if err := t.parse(cmd, args); err != nil || !toFile(local) {
		return err
	}
	return check(local)
}

// toFile tells whether --out or --from names a local file: "" and "-" are
// the standard streams.
func toFile(local string) bool { return local != "" && local != "-" }
