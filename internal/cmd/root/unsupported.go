package root

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/files"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/provider"
)

// familyCommand is a command of the abx family whose capability no
// registered provider has yet. It is declared like every other command, so
// the root's capability check refuses it with E8004 before any request; the
// RunE is reached only by a provider that declares the capability but has
// not wired it, which is refused the same way.
func familyCommand(f *cmdutil.Factory, use, short string, c provider.Capability) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short + " (not supported by every provider)",
		Long: short + `.

It needs the capability ` + string(c) + `: a provider without it refuses the command with
E8004 (exit 5) before any request, and no provider abx knows has it yet. 'abx capabilities'
shows what the selected provider supports.`,
		Example: "  abx capabilities -o json | jq '.capabilities[] | select(.name == \"" + string(c) + "\")'",
		Args:    cobra.ArbitraryArgs,
		RunE: func(*cobra.Command, []string) error {
			return abxerr.NewUnsupported(f.Descriptor.Name, string(c))
		},
	}
	cmd.Flags().SetInterspersed(true)
	cmd.FParseErrWhitelist.UnknownFlags = true
	return cmdutil.Needs(cmd, c)
}

// The family's commands this tree has no implementation of: templates,
// file watching, presigned transfer URLs and the interactive terminal.

func newCmdTemplate(f *cmdutil.Factory) *cobra.Command {
	template := &cobra.Command{Use: "template", Short: "Work with sandbox templates",
		Long: `Templates are what sandboxes start from ('abx create --template T'). Listing and
building them need the capabilities templates.read and templates.build, which no provider
abx knows has yet: these commands exit 5 (E8004) before any request.`,
		Example: `  abx capabilities -o json | jq -r '.capabilities[] | select(.name | startswith("templates.")) | "\(.name) \(.supported)"'`}
	template.AddCommand(
		familyCommand(f, "list", "List templates", provider.TemplatesRead),
		familyCommand(f, "build", "Build a template", provider.TemplatesBuild),
	)
	return template
}

// newCmdFiles is the files group with the family's file commands.
func newCmdFiles(f *cmdutil.Factory) *cobra.Command {
	c := files.NewCmdFiles(f)
	c.AddCommand(
		familyCommand(f, "watch ID PATH", "Watch a directory for changes", provider.FilesWatch),
		familyCommand(f, "upload-url ID PATH", "Print a presigned upload URL", provider.FilesTransfer),
		familyCommand(f, "download-url ID PATH", "Print a presigned download URL", provider.FilesTransfer),
	)
	return c
}

func newCmdTerminal(f *cmdutil.Factory) *cobra.Command {
	return familyCommand(f, "terminal ID", "Open an interactive terminal in a sandbox", provider.PTY)
}
