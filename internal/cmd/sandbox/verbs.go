package sandbox

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	group := cmdutil.GroupSandboxes
	return []cmdutil.Verb{
		{Names: createNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdCreate(f, nil) }},
		{Names: connectNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdConnect(f, nil) }},
		{Names: listNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdList(f, nil) }},
		{Names: infoNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdInfo(f, nil) }},
		{Names: killNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdKill(f, nil) }},
		{Names: timeoutNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdTimeout(f, nil) }},
		{Names: pauseNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdPause(f, nil) }},
		{Names: resumeNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdResume(f, nil) }},
		{Names: metricsNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdMetrics(f, nil) }},
		{Names: portForwardNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdPortForward(f, nil) }},
		{Names: templateNames, Group: group, Build: NewCmdTemplate},
		{Names: snapshotNames, Group: group, Build: NewCmdSnapshot},
		{Names: forkNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdFork(f, nil) }},
	}
}

// templateNames are the names of `abx template`, declared once: its command takes
// them, and its group's Verbs lists them.
var templateNames = cmdutil.Names{"template"}

// NewCmdTemplate is `abx template`, whose capabilities no provider abx
// knows has yet.
func NewCmdTemplate(f *cmdutil.Factory) *cobra.Command {
	template := &cobra.Command{Use: templateNames.Use(""), Short: "Work with sandbox templates",
		Long: `Templates are what sandboxes start from ('abx create --template T'). Listing and
building them need the capabilities templates.read and templates.build, which no provider
abx knows has yet: these commands exit 5 (E8004) before any request.`,
		Example: `  abx capabilities -o json | jq -r '.capabilities[] | select(.name | startswith("templates.")) | "\(.name) \(.supported)"'`}
	template.AddCommand(
		cmdutil.Unsupported(f, "list", "List templates", "templates.list"),
		cmdutil.Unsupported(f, "build", "Build a template", "templates.build"),
	)
	return template
}
