package code

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/interrupt"
)

// codeFrom says where the code comes from, exactly one place: the argument
// (hasArg: given, if empty), -f FILE, or stdin ('-'). It returns the
// argument's code, or the file to read it from ("-" for stdin), which
// readCode reads.
func codeFrom(cmd *cobra.Command, arg string, hasArg bool, file string) (code, from string, err error) {
	switch {
	case hasArg && file != "":
		return "", "", cmdutil.UsageError(cmd, "give the code once: as an argument or with -f, not both")
	case !hasArg && file == "":
		return "", "", cmdutil.UsageError(cmd, "abx run-code needs code: as an argument, with -f FILE, or '-' to read stdin")
	case arg == "-":
		return "", "-", nil
	}
	return arg, file, nil
}

// readCode reads the code from file ("-" for stdin), for the operation to
// call once it has checked the run's other inputs; nil when the code is
// the argument. Stdin is read only when asked for, so that a script with
// an inherited stdin does not hang (docs/run-code.md).
func readCode(ctx context.Context, stdin io.Reader, file string) func() (string, error) {
	if file == "" {
		return nil
	}
	return func() (string, error) {
		var raw []byte
		var err error
		if file == "-" {
			// Ctrl-C while stdin is a terminal or an idle pipe: a blocked
			// read would not notice.
			raw, err = io.ReadAll(interrupt.Reader(ctx, stdin))
			if err != nil && ctx.Err() != nil {
				return "", err
			}
		} else {
			raw, err = os.ReadFile(file)
		}
		if err != nil {
			return "", abxerr.New(abxerr.InvalidInput, "cannot read the code: %v", err)
		}
		return string(raw), nil
	}
}

// given refuses a flag given an empty value: most often an unset
// variable, which the operation would take for the flag left out. says is
// what leaving it out does, for the hint.
func given(cmd *cobra.Command, flag, v, says string) error {
	if !cmd.Flags().Changed(flag) || v != "" {
		return nil
	}
	return abxerr.New(abxerr.InvalidInput, "invalid --%s %q: it is empty", flag, v).
		WithHint("leave --%s out %s", flag, says)
}

// checkSaveDir refuses a --save-dir that cannot be a directory before any
// request; a missing one is made when the first result is saved.
func checkSaveDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return abxerr.New(abxerr.InvalidInput, "invalid --save-dir %q: %v", dir, err)
	case !st.IsDir():
		return abxerr.New(abxerr.InvalidInput, "invalid --save-dir %q: it is a file", dir).
			WithHint("name a directory (it is created if missing)")
	}
	return nil
}
