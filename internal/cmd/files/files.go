// Package files holds `abx files`: the commands that list, read, write,
// move and copy a sandbox's files through its envd. What moves bytes
// between this machine and a sandbox lives in internal/transfer; this
// package reads the command line and prints.
package files

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// NewCmdFiles builds the `abx files` group and its verbs.
func NewCmdFiles(f *cmdutil.Factory) *cobra.Command {
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
	addUserFlag(files)
	files.AddCommand(
		NewCmdLs(f, nil), NewCmdStat(f, nil), NewCmdRead(f, nil), NewCmdWrite(f, nil),
		NewCmdMkdir(f, nil), NewCmdMv(f, nil), NewCmdRm(f, nil), NewCmdCp(f, nil),
	)
	return files
}

// addUserFlag declares the group's --user, which every verb inherits.
func addUserFlag(group *cobra.Command) {
	group.PersistentFlags().StringP("user", "u", "", `Linux user whose permissions apply (default "user")`)
}

// userOf reads the inherited --user; a verb built on its own has none, and
// "" lets envd (or abx, for old envd) pick the default user.
func userOf(cmd *cobra.Command) string {
	if fl := cmd.Flags().Lookup("user"); fl != nil {
		return fl.Value.String()
	}
	return ""
}

// parseArgs reads the sandbox ID (or sandbox/ID) and the remote paths
// that follow it; an empty path is refused before anything is sent.
func parseArgs(args []string) (string, error) {
	id, err := cmdutil.SandboxID(args[0])
	if err != nil {
		return "", err
	}
	for _, p := range args[1:] {
		if p == "" {
			return "", abxerr.New(abxerr.InvalidInput, "empty path").WithHint("give an absolute path, or one relative to the user's home")
		}
	}
	return id, nil
}

// meterOn draws transfer meters on io's stderr (on a terminal only).
func meterOn(io *output.Streams) func(string, int64) transfer.Meter {
	return func(label string, total int64) transfer.Meter { return io.NewProgress(label, total) }
}
