package cmdutil

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ExactArgs refuses a wrong number of arguments with a usage error that
// names what is expected, e.g. "abx pause needs ID".
func ExactArgs(names ...string) cobra.PositionalArgs {
	return RangeArgs(len(names), names...)
}

// RangeArgs takes at least min of the named arguments and at most all of
// them; names of optional ones are written [LIKE-THIS].
func RangeArgs(minArgs int, names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= minArgs && len(args) <= len(names) {
			return nil
		}
		return ArgsError(cmd, args, minArgs, names)
	}
}

// ArgsError says what cmd needs when it got the wrong number of arguments:
// "abx pause needs ID", "abx url takes ID PORT, got 3 arguments", "abx
// create takes no arguments, got "x"".
func ArgsError(cmd *cobra.Command, args []string, minArgs int, names []string) error {
	want := strings.Join(names, " ")
	var e *abxerr.Error
	switch {
	case len(args) < minArgs:
		e = abxerr.New(abxerr.Usage, "%s needs %s", cmd.CommandPath(), want)
	case len(names) == 0:
		e = abxerr.New(abxerr.Usage, "%s takes no arguments, got %s", cmd.CommandPath(), quoted(args))
	default:
		e = abxerr.New(abxerr.Usage, "%s takes %s, got %d arguments", cmd.CommandPath(), want, len(args))
	}
	return e.WithHint("usage: %s", cmd.UseLine())
}

// quoted lists the first few arguments as Go quotes them, so that a stray
// control character shows as an escape.
func quoted(args []string) string {
	const shown = 3
	parts := make([]string, 0, shown+1)
	for i, a := range args {
		if i == shown {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, strconv.Quote(a))
	}
	return strings.Join(parts, " ")
}

// UsageError is a usage mistake in cmd, with the usage line as the hint.
func UsageError(cmd *cobra.Command, format string, args ...any) error {
	return abxerr.New(abxerr.Usage, format, args...).WithHint("usage: %s", cmd.UseLine())
}

// Run ends every command's RunE: it hands the parsed Options to runF, the
// function a test gives NewCmdX to see them, or else to the command's run.
// The context names the inputs of the command's operation (Does) as the
// command takes them, as the root's does, so that a command run without
// the root (a test's) words its refusals the same.
func Run[O any](cmd *cobra.Command, opts O, runF, run func(context.Context, O) error) error {
	ctx := cmd.Context()
	if Operation(cmd) != nil && !sandboxes.Spelled(ctx) {
		ctx = sandboxes.WithSpelling(ctx, Spelling(cmd, cmd.Flags().Args()))
	}
	if runF != nil {
		return runF(ctx, opts)
	}
	return run(ctx, opts)
}
