package code

import (
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/interrupt"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// readCode takes the code from exactly one place: the argument (hasArg:
// given, if empty), -f FILE, or stdin ('-'). Stdin is read only when asked
// for, so that a script with an inherited stdin does not hang
// (docs/run-code.md).
func readCode(cmd *cobra.Command, stdin io.Reader, arg string, hasArg bool, file string) (string, error) {
	switch {
	case hasArg && file != "":
		return "", cmdutil.UsageError(cmd, "give the code once: as an argument or with -f, not both")
	case !hasArg && file == "":
		return "", cmdutil.UsageError(cmd, "abx run-code needs code: as an argument, with -f FILE, or '-' to read stdin")
	}
	var raw []byte
	var err error
	switch src := arg + file; {
	case src == "-":
		// Ctrl-C while stdin is a terminal or an idle pipe: a blocked
		// read would not notice.
		raw, err = io.ReadAll(interrupt.Reader(cmd.Context(), stdin))
		if err != nil && cmd.Context().Err() != nil {
			return "", err
		}
	case file != "":
		raw, err = os.ReadFile(file)
	default:
		raw = []byte(arg)
	}
	if err != nil {
		return "", abxerr.New(abxerr.InvalidInput, "cannot read the code: %v", err)
	}
	// Empty code is almost always an unset variable: refused, not sent.
	if strings.TrimSpace(string(raw)) == "" {
		return "", abxerr.New(abxerr.InvalidInput, "the code is empty").
			WithHint("check the argument, file or stdin you meant to run")
	}
	return string(raw), nil
}

// parseCodeEnv reads --env for run-code. The code interpreter pastes each
// pair into the code it runs (os.environ['K'] = 'V'), so a value with a
// quote, a backslash or a line break would break that code: refused here.
func parseCodeEnv(items []string) (map[string]string, error) {
	env, err := cmdutil.ParseKeyValues("--env", items)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if strings.ContainsAny(k+env[k], "'\"\\\n\r") {
			return nil, abxerr.New(abxerr.InvalidInput, "invalid --env %s: quotes, backslashes and line breaks cannot be passed to the code interpreter", k).
				WithHint("set it in the code instead, or write it to a file with 'abx files write'")
		}
	}
	return env, nil
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

// checkContextID refuses a context ID that could not be one, before it is
// sent (restart and delete put it in the URL).
func checkContextID(sandboxID, id string) error {
	if e := sandboxes.CheckID("context ID", id); e != nil {
		return e.WithHint("pass a context ID as shown by 'abx run-code contexts list %s'", sandboxID)
	}
	return nil
}
