package root

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/code"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// addCompletions tells the shell what to offer on Tab (docs/completion.md).
// It is wired in one place rather than in each command's file so that what
// completes what reads as one table, and a test can check every row.
func addCompletions(root *cobra.Command, f *cmdutil.Factory) {
	// Declared now rather than when cobra first runs, so that help and the
	// generated reference list it like any other command. Its scripts go to
	// the writer the root has at this moment: give it ours.
	if f.IO != nil {
		root.SetOut(f.IO.Out)
	}
	root.InitDefaultCompletionCmd()
	if cmd := findCommand(root, "completion"); cmd != nil {
		cmd.Long = completionLong
		for _, c := range append(cmd.Commands(), cmd) {
			cmdutil.NoJSON(c) // shell scripts
		}
	}
	// A jq expression is not a file name.
	_ = root.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions)
	c := &completer{f: f}
	for path, fn := range argCompletions(c) {
		if cmd := findCommand(root, path); cmd != nil {
			cmd.ValidArgsFunction = fn
		}
	}
	for _, fc := range flagCompletions(f) {
		if cmd := findCommand(root, fc.cmd); cmd != nil {
			_ = cmd.RegisterFlagCompletionFunc(fc.flag, fc.fn)
		}
	}
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

// argCompletions maps a command path (below the root) to what completes its
// arguments.
func argCompletions(c *completer) map[string]cobra.CompletionFunc {
	anyID := c.sandboxArg(nil)
	m := map[string]cobra.CompletionFunc{
		"info":     anyID,
		"timeout":  anyID,
		"connect":  anyID,
		"url":      anyID,
		"pause":    c.sandboxArg(inState("running")),
		"resume":   c.sandboxArg(inState("paused")),
		"kill":     c.killArgs,
		"exec":     c.execArgs,
		"run-code": anyID,
		"files cp": c.copyArgs,
		"files mv": c.fileArgs(2),
	}
	for _, p := range []string{"ps", "ps kill", "ps stdin", "ps attach",
		"run-code contexts list", "run-code contexts create", "run-code contexts restart", "run-code contexts delete"} {
		m[p] = anyID
	}
	for _, p := range []string{"files ls", "files stat", "files read", "files write", "files mkdir", "files rm"} {
		m[p] = c.fileArgs(1)
	}
	return m
}

type flagCompletion struct {
	cmd, flag string // cmd "" is the root, for global flags
	fn        cobra.CompletionFunc
}

func flagCompletions(f *cmdutil.Factory) []flagCompletion {
	formats := make([]string, len(output.Formats))
	for i, fm := range output.Formats {
		formats[i] = string(fm)
	}
	langs := code.Languages()
	states := commaList(cmdutil.SandboxStates)
	return []flagCompletion{
		{"", "output", choices(formats...)},
		{"", "provider", choices(f.Registry.Names()...)},
		{"list", "state", states},
		{"kill", "state", states},
		// The sandbox-manager has no endpoint that lists templates (abx
		// template list is unsupported), so these are suggestions: the two
		// templates most clusters and the emulator have. Any name can be typed.
		{"create", "template", choices(
			"base\tcommon template name",
			"code-interpreter\tcommon template name",
		)},
		{"run-code", "language", choices(langs...)},
		{"run-code contexts create", "language", choices(langs...)},
		{"ps kill", "signal", choices("TERM", "KILL")},
	}
}

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

// choices completes fixed values ("value" or "value\tdescription") that
// start with what was typed.
func choices(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// commaList completes a comma-separated flag (--state running,paused): the
// last item, after the ones already typed.
func commaList(values []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		done, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			done, last = toComplete[:i+1], toComplete[i+1:]
		}
		typed := strings.Split(done, ",")
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, last) && !slices.Contains(typed, v) {
				out = append(out, done+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
