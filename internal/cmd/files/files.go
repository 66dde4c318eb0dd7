// Package files holds `abx files`: the commands that list, read, write,
// move and copy a sandbox's files through its envd. What moves bytes
// between this machine and a sandbox lives in internal/transfer; this
// package reads the command line and prints.
package files

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// filesNames are the names of `abx files`, declared once: its command takes
// them, and its group's Verbs lists them.
var filesNames = cmdutil.Names{"files"}

// NewCmdFiles builds the `abx files` group and its verbs.
func NewCmdFiles(f *cmdutil.Factory) *cobra.Command {
	files := &cobra.Command{
		Use:   filesNames.Use(""),
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
		NewCmdMkdir(f, nil), NewCmdMv(f, nil), NewCmdRm(f, nil), NewCmdCp(f, nil), NewCmdWatch(f, nil),
		// The family's file commands no provider abx knows has yet.
		cmdutil.Unsupported(f, "upload-url ID PATH", "Print a presigned upload URL", "files.upload-url"),
		cmdutil.Unsupported(f, "download-url ID PATH", "Print a presigned download URL", "files.download-url"),
	)
	return files
}

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	return []cmdutil.Verb{{Names: filesNames, Group: cmdutil.GroupInside, Build: NewCmdFiles}}
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

// target is what every verb works on, and each verb's options embed it:
// a sandbox, the user whose permissions apply, and a remote path. They are
// read as given: the operation checks them, before anything is sent.
type target struct {
	Sandboxes *sandboxes.Service

	ID   string
	User string
	// Path is the remote path, absolute or relative to the user's home:
	// the first one after the ID (mv's source), or "." (the home) when
	// there is none.
	Path string
}

// parse reads the sandbox ID (or sandbox/ID), the remote path that
// follows it and the inherited --user.
func (t *target) parse(cmd *cobra.Command, args []string) error {
	t.ID, t.User, t.Path = cmdutil.SandboxArg(args[0]), userOf(cmd), "."
	if len(args) > 1 {
		t.Path = args[1]
	}
	return nil
}

// parser is a verb's options: they read its argv (target.parse, or the
// verb's own parse around it).
type parser interface {
	parse(cmd *cobra.Command, args []string) error
}

// verb completes a verb's command: its RunE reads argv into opts and hands
// them to runF (a test's) or run, it calls the operation op, and Tab
// completes its arguments with complete. spell names the operation's
// inputs as the verb takes them (cmdutil.Does): its positional PATH.
func verb[O parser](opts O, runF, run func(context.Context, O) error, cmd *cobra.Command, complete cobra.CompletionFunc,
	op string, spell ...string) *cobra.Command {
	cmd.ValidArgsFunction = complete
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := opts.parse(cmd, args); err != nil {
			return err
		}
		return withUserHint(cmdutil.Run(cmd, opts, runF, run))
	}
	return cmdutil.Does(cmd, op, spell...)
}

// withUserHint names --user in the hint of a path the sandbox refused its
// user (E5007): the flag that acts as another user is this door's.
func withUserHint(err error) error {
	var e *abxerr.Error
	if !errors.As(err, &e) || e.Code != abxerr.PermissionDenied {
		return err
	}
	out := *e
	out.Hint = "choose a path the user may write (its home, /tmp), or add --user root"
	return &out
}

// hasCode reports whether err is abx's error of code.
func hasCode(err error, code abxerr.Code) bool {
	e := abxerr.From(err)
	return e != nil && e.Code == code
}
