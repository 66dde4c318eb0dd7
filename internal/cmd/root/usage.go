package root

import (
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// The usage text is cobra's, with its flags in three parts: the command's
// own, abx's global ones, and the provider's settings, shown only on the
// commands that use a provider (a provider's --domain means nothing to
// 'abx version').
var usageFuncs sync.Once

func setUsage(root *cobra.Command) {
	usageFuncs.Do(func() {
		cobra.AddTemplateFuncs(map[string]any{
			"ownFlags":      func(c *cobra.Command) string { return flagUsages(c.LocalFlags(), false) },
			"globalFlags":   func(c *cobra.Command) string { return flagUsages(c.InheritedFlags(), false) },
			"providerFlags": providerFlags,
		})
	})
	t := root.UsageTemplate()
	t = strings.Replace(t, `{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}`, `{{with ownFlags .}}

Flags:
{{.}}{{end}}{{with globalFlags .}}

Global Flags:
{{.}}{{end}}{{with providerFlags .}}

Provider flags (or their variables: abx help environment):
{{.}}{{end}}`, 1)
	root.SetUsageTemplate(t)
}

// flagUsages lists the visible flags of fs that are (or are not) a
// provider's settings.
func flagUsages(fs *pflag.FlagSet, providers bool) string {
	sub := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden && cmdutil.IsProviderFlag(fl) == providers {
			sub.AddFlag(fl)
		}
	})
	return strings.TrimRight(sub.FlagUsages(), " \n")
}

// providerFlags lists the providers' settings where they apply.
func providerFlags(c *cobra.Command) string {
	if !cmdutil.NeedsProvider(c) {
		return ""
	}
	all := pflag.NewFlagSet("", pflag.ContinueOnError)
	all.AddFlagSet(c.LocalFlags())
	all.AddFlagSet(c.InheritedFlags())
	return flagUsages(all, true)
}
