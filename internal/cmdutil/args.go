package cmdutil

import (
	"context"

	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
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
		return ArgsError(cmd, len(args), minArgs, names)
	}
}

// ArgsError says what cmd needs when it got the wrong number of arguments.
func ArgsError(cmd *cobra.Command, got, minArgs int, names []string) error {
	want := strings.Join(names, " ")
	if got < minArgs {
		return abxerr.New(abxerr.Usage, "%s needs %s", cmd.CommandPath(), want).
			WithHint("usage: %s", cmd.UseLine())
	}
	return abxerr.New(abxerr.Usage, "%s takes %s, got %d arguments", cmd.CommandPath(), want, got).
		WithHint("usage: %s", cmd.UseLine())
}

// UsageError is a usage mistake in cmd, with the usage line as the hint.
func UsageError(cmd *cobra.Command, format string, args ...any) error {
	return abxerr.New(abxerr.Usage, format, args...).WithHint("usage: %s", cmd.UseLine())
}

// Run ends every command's RunE: it hands the parsed Options to runF, the
// function a test gives NewCmdX to see them, or else to the command's run.
func Run[O any](cmd *cobra.Command, opts O, runF, run func(context.Context, O) error) error {
	if runF != nil {
		return runF(cmd.Context(), opts)
	}
	return run(cmd.Context(), opts)
}
