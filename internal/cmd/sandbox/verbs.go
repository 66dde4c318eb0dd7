package sandbox

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/provider"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	group := cmdutil.GroupSandboxes
	return []cmdutil.Verb{
		{Names: []string{"create"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdCreate(f, nil) }},
		{Names: []string{"connect"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdConnect(f, nil) }},
		{Names: []string{"list", "ls"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdList(f, nil) }},
		{Names: []string{"info"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdInfo(f, nil) }},
		{Names: []string{"kill"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdKill(f, nil) }},
		{Names: []string{"timeout"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdTimeout(f, nil) }},
		{Names: []string{"pause"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdPause(f, nil) }},
		{Names: []string{"resume"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdResume(f, nil) }},
		{Names: []string{"metrics"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdMetrics(f, nil) }},
		{Names: []string{"url"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdURL(f, nil) }},
		{Names: []string{"port-forward"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdPortForward(f, nil) }},
		{Names: []string{"template"}, Group: group, Build: NewCmdTemplate},
	}
}

// NewCmdTemplate is `abx template`, whose capabilities no provider abx
// knows has yet.
func NewCmdTemplate(f *cmdutil.Factory) *cobra.Command {
	template := &cobra.Command{Use: "template", Short: "Work with sandbox templates",
		Long: `Templates are what sandboxes start from ('abx create --template T'). Listing and
building them need the capabilities templates.read and templates.build, which no provider
abx knows has yet: these commands exit 5 (E8004) before any request.`,
		Example: `  abx capabilities -o json | jq -r '.capabilities[] | select(.name | startswith("templates.")) | "\(.name) \(.supported)"'`}
	template.AddCommand(
		cmdutil.Unsupported(f, "list", "List templates", provider.TemplatesRead),
		cmdutil.Unsupported(f, "build", "Build a template", provider.TemplatesBuild),
	)
	return template
}
