package cli

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
)

// exactArgs refuses a wrong number of arguments with a usage error that
// names what is expected, e.g. "abx pause needs ID".
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == len(names) {
			return nil
		}
		return argsError(cmd, len(args), names)
	}
}

func argsError(cmd *cobra.Command, got int, names []string) error {
	want := ""
	for i, n := range names {
		if i > 0 {
			want += " "
		}
		want += n
	}
	if got < len(names) {
		return abxerr.New(abxerr.Usage, "%s needs %s", cmd.CommandPath(), want).
			WithHint("usage: %s", cmd.UseLine())
	}
	return abxerr.New(abxerr.Usage, "%s takes %s, got %d arguments", cmd.CommandPath(), want, got).
		WithHint("usage: %s", cmd.UseLine())
}

// usageError is a usage mistake in cmd, with the usage line as the hint.
func usageError(cmd *cobra.Command, format string, args ...any) error {
	return abxerr.New(abxerr.Usage, format, args...).WithHint("usage: %s", cmd.UseLine())
}
