package root

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/files"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// completionTimeout bounds each lookup a Tab makes. The shell waits for
// abx before it shows anything, so a slow or unreachable service must cost
// the user a moment, not a hung prompt.
const completionTimeout = 2 * time.Second

// completer answers Tab with what only the service knows: sandbox IDs and
// the paths inside a sandbox. It runs inside `abx __complete`, whose stderr
// the shell discards and whose errors it cannot show: any failure (no
// configuration, no network, a refusal) is simply no candidates.
type completer struct {
	f *cmdutil.Factory
	p provider.Provider // bound once; a Tab may look up IDs and paths
}

// errStdinSetting refuses a setting read from stdin while completing: the
// stdin of `abx __complete` is the terminal the user is typing in.
var errStdinSetting = errors.New("a setting is read from stdin")

// provider binds the configuration the command being completed would use:
// the same flags, variables and defaults, quietly.
func (c *completer) provider() (provider.Provider, error) {
	if c.p != nil {
		return c.p, nil
	}
	f := c.f
	// The root selects the provider only for commands that need one, and
	// __complete is not one of them: select it here, as the root would.
	d, err := f.SelectProvider()
	if err != nil {
		return nil, err
	}
	_, bound, err := f.BindSettings(d, nil)
	if err != nil {
		return nil, err
	}
	for _, b := range bound {
		if b.FileOf != "" && b.Value == "-" {
			return nil, errStdinSetting
		}
	}
	// --debug on the line being completed would trace into the shell's
	// discarded stderr at best, and onto the prompt at worst.
	f.Debug = false
	p, err := f.Provider()
	c.p = p
	return p, err
}

// stateFilter keeps the sandboxes a command can act on; nil keeps all.
type stateFilter func(provider.Sandbox) bool

func inState(state string) stateFilter {
	return func(s provider.Sandbox) bool { return s.State == state }
}

// sandboxes lists the sandboxes whose ID starts with prefix, as cobra's
// "ID\tdescription" candidates; the description is the template and the
// state, what tells one sandbox from another at a glance.
func (c *completer) sandboxes(cmd *cobra.Command, prefix, suffix string, keep stateFilter, skip []string) []cobra.Completion {
	p, err := c.provider()
	if err != nil {
		return nil
	}
	ctx, cancel := completionContext(cmd)
	defer cancel()
	list, err := p.List(ctx, provider.ListOptions{})
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, s := range list {
		if !strings.HasPrefix(s.SandboxID, prefix) || slices.Contains(skip, s.SandboxID) || (keep != nil && !keep(s)) || !typable(s.SandboxID) {
			continue
		}
		out = append(out, cobra.CompletionWithDesc(s.SandboxID+suffix, c.f.IO.Safe(s.TemplateID+", "+s.State)))
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
	return context.WithTimeout(ctx, completionTimeout)
}

// sandboxArg completes a sandbox ID as the first argument, and nothing after.
func (c *completer) sandboxArg(keep stateFilter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return c.sandboxes(cmd, toComplete, "", keep, nil), cobra.ShellCompDirectiveNoFileComp
	}
}

// killArgs completes every argument of kill, leaving out the IDs already
// given; --all takes none.
func (c *completer) killArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if cmd.Flags().Changed("all") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return c.sandboxes(cmd, toComplete, "", nil, args), cobra.ShellCompDirectiveNoFileComp
}

// execArgs completes the ID, the one argument before --; the command
// after it is the sandbox's, which abx cannot see. (While completing,
// cobra's ArgsLenAtDash is not reliable: it parses an extra "--".)
func (c *completer) execArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return c.sandboxes(cmd, toComplete, "", nil, nil), cobra.ShellCompDirectiveNoFileComp
}

// fileArgs completes a files command: the ID, then as many paths in that
// sandbox as the command takes.
func (c *completer) fileArgs(paths int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			return c.sandboxes(cmd, toComplete, "", nil, nil), cobra.ShellCompDirectiveNoFileComp
		case len(args) <= paths:
			return c.remotePaths(cmd, args[0], "", toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// copyArgs completes cp's SRC and DST: "ID:" for the remote side, then the
// path after the colon. A side that is not remote is a local path, left to
// the shell's own file completion.
func (c *completer) copyArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) >= 2 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if len(args) == 1 {
		if _, _, remote := files.SplitRemote(args[0]); remote {
			return nil, cobra.ShellCompDirectiveDefault
		}
	}
	if id, p, remote := files.SplitRemote(toComplete); remote {
		return c.remotePaths(cmd, id, id+":", p)
	}
	ids := c.sandboxes(cmd, toComplete, ":", nil, nil)
	if len(ids) == 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return ids, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// remotePaths completes a path in sandbox id with one listing of the typed
// directory. Directories end in "/" and keep the cursor there, so the next
// Tab goes on into them.
func (c *completer) remotePaths(cmd *cobra.Command, id, prefix, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const quiet = cobra.ShellCompDirectiveNoFileComp
	id, err := cmdutil.SandboxID(id)
	if err != nil {
		return nil, quiet
	}
	if _, err := c.provider(); err != nil {
		return nil, quiet
	}
	ctx, cancel := completionContext(cmd)
	defer cancel()
	user, _ := cmd.Flags().GetString("user")
	client, err := c.f.EnvdClient(ctx, id, user)
	if err != nil {
		return nil, quiet
	}
	dir, base := path.Split(toComplete)
	listed := dir
	if listed == "" {
		listed = "." // the user's home, as for files ls
	}
	entries, err := client.ListDir(ctx, listed, 1)
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
