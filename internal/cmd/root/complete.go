package root

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/profile"
	"github.com/abx-dev/abx/internal/runfile"
)

// addCompletion declares the completion command and what completes the
// root's own flags (docs/completion.md). Each verb says what completes its
// arguments and flags where it is built (cmdutil's Complete functions).
func addCompletion(root *cobra.Command, f *cmdutil.Factory) {
	// Declared now rather than when cobra first runs, so that help and the
	// generated reference list it like any other command. Its scripts go to
	// the writer the root has at this moment: give it ours.
	root.SetOut(f.IO.Out)
	root.InitDefaultCompletionCmd()
	if cmd := findCommand(root, "completion"); cmd != nil {
		cmd.Long = completionLong
		for _, c := range append(cmd.Commands(), cmd) {
			cmdutil.NoJSON(c) // shell scripts
		}
	}
	formats := make([]string, len(output.Formats))
	for i, fm := range output.Formats {
		formats[i] = string(fm)
	}
	// A jq expression is not a file name.
	_ = root.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("output", cmdutil.Choices(formats...))
	_ = root.RegisterFlagCompletionFunc("provider", cmdutil.Choices(f.Registry.Names()...))
	_ = root.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		file, err := profile.Load(profile.Path(f.Getenv), runfile.Home(f.Getenv), profile.SettingsOf(f.Registry))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return file.Names(), cobra.ShellCompDirectiveNoFileComp
	})
}

const completionLong = `Print the script that lets your shell complete abx's commands, flags, sandbox IDs
and remote paths on Tab. Load it once in the current shell, or install it for every
new one:

  bash (needs the bash-completion package)
    source <(abx completion bash)
    abx completion bash > ~/.local/share/bash-completion/completions/abx

  zsh
    source <(abx completion zsh)
    abx completion zsh > "${fpath[1]}/_abx"      # then start a new shell

  fish
    abx completion fish | source
    abx completion fish > ~/.config/fish/completions/abx.fish

  PowerShell
    abx completion powershell | Out-String | Invoke-Expression
    (add that line to $PROFILE to keep it)

Sandbox IDs and paths are looked up with the same configuration as the command you
are typing, within 2 seconds; when that fails, Tab offers nothing and prints nothing.
Each subcommand's help has more detail for its shell.`

// findCommand finds a command by its path below the root; nil if there is
// none (a renamed command loses its completion, and the tests say so).
func findCommand(root *cobra.Command, path string) *cobra.Command {
	cmd := root
	for _, name := range strings.Fields(path) {
		var next *cobra.Command
		for _, sub := range cmd.Commands() {
			if sub.Name() == name {
				next = sub
				break
			}
		}
		if next == nil {
			return nil
		}
		cmd = next
	}
	return cmd
}
