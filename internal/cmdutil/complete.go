package cmdutil

import (
	"context"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// What a Tab offers (docs/completion.md). Each verb says what completes its
// arguments and flags where it is built, with the functions here.
//
// Sandbox IDs and the paths inside a sandbox come from the service. They
// are looked up in `abx __complete`, whose stderr the shell discards and
// whose errors it cannot show: any failure (no configuration, no network, a
// refusal) is simply no candidates. The Factory of such a run traces
// nothing and reads no setting from stdin.

// completionTimeout bounds each lookup a Tab makes. The shell waits for
// abx before it shows anything, so a slow or unreachable service must cost
// the user a moment, not a hung prompt.
const completionTimeout = 2 * time.Second

// StateFilter keeps the sandboxes a command can act on; nil keeps all.
type StateFilter func(provider.Sandbox) bool

// InState keeps the sandboxes in state.
func InState(state string) StateFilter {
	return func(s provider.Sandbox) bool { return s.State == state }
}

// SandboxCandidates lists the sandboxes whose ID starts with prefix, as
// cobra's "ID\tdescription" candidates, each ID followed by suffix; the
// description is the template and the state, what tells one sandbox from
// another at a glance. IDs in skip are left out.
func SandboxCandidates(cmd *cobra.Command, f *Factory, prefix, suffix string, keep StateFilter, skip []string) []cobra.Completion {
	ctx, cancel := completionContext(cmd)
	defer cancel()
	list, err := f.Sandboxes.List(ctx, provider.ListOptions{})
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, s := range list {
		if !strings.HasPrefix(s.SandboxID, prefix) || slices.Contains(skip, s.SandboxID) || (keep != nil && !keep(s)) || !typable(s.SandboxID) {
			continue
		}
		out = append(out, cobra.CompletionWithDesc(s.SandboxID+suffix, f.IO.Safe(s.TemplateID+", "+s.State)))
	}
	return out
}

// typable tells whether a server's name can be a candidate: one with a
// control in it would break cobra's one-candidate-a-line answer, or reach
// the terminal when the shell lists the candidates; escaped, it would name
// nothing. Such a name is left out; it can still be typed, quoted.
func typable(name string) bool { return output.Escape(name) == name }

func completionContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	bound := completionTimeout
	if d, ok := ctx.Value(completionBoundKey{}).(time.Duration); ok {
		bound = d
	}
	return context.WithTimeout(ctx, bound)
}

type completionBoundKey struct{}

// WithCompletionBound has the lookups of a completion run under ctx bound
// by d rather than completionTimeout: for tests, whose lookups on a loaded
// machine may take longer than a Tab may, and whose test of the bound
// itself needs no 2 s.
func WithCompletionBound(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, completionBoundKey{}, d)
}

// CompleteSandbox completes a sandbox ID as the first argument, and
// nothing after (the command after exec's -- is the sandbox's, which abx
// cannot see).
func CompleteSandbox(f *Factory, keep StateFilter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return SandboxCandidates(cmd, f, toComplete, "", keep, nil), cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteSandboxFiles completes a sandbox ID, then as many paths in that
// sandbox as the command takes.
func CompleteSandboxFiles(f *Factory, paths int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			return SandboxCandidates(cmd, f, toComplete, "", nil, nil), cobra.ShellCompDirectiveNoFileComp
		case len(args) <= paths:
			return RemotePaths(cmd, f, args[0], "", toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// RemotePaths completes a path in sandbox id with one listing of the
// typed directory, each candidate after prefix. Directories end in "/" and
// keep the cursor there, so the next Tab goes on into them.
func RemotePaths(cmd *cobra.Command, f *Factory, id, prefix, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const quiet = cobra.ShellCompDirectiveNoFileComp
	ctx, cancel := completionContext(cmd)
	defer cancel()
	user, _ := cmd.Flags().GetString("user")
	dir, base := path.Split(toComplete)
	listed := dir
	if listed == "" {
		listed = "." // the user's home, as for files ls
	}
	entries, err := f.Sandboxes.ListDir(ctx, SandboxArg(id), user, listed, 1)
	if err != nil {
		return nil, quiet
	}
	var out []cobra.Completion
	directive := quiet
	for _, e := range entries {
		if !strings.HasPrefix(e.Name, base) || !typable(e.Name) {
			continue
		}
		name := prefix + dir + e.Name
		if e.Type == "dir" {
			name += "/"
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		out = append(out, name)
	}
	return out, directive
}

// Choices completes fixed values ("value" or "value\tdescription") that
// start with what was typed.
func Choices(values ...string) cobra.CompletionFunc {
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

// CommaList completes a comma-separated flag (--state running,paused): the
// last item, after the ones already typed.
func CommaList(values []string) cobra.CompletionFunc {
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

// CompleteFlag registers what completes cmd's flag name.
func CompleteFlag(cmd *cobra.Command, name string, fn cobra.CompletionFunc) {
	_ = cmd.RegisterFlagCompletionFunc(name, fn)
}
