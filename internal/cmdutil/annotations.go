package cmdutil

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/provider"
)

// Annotations a command carries for the root's checks; set them with the
// functions below, read them with the Is… ones.
const (
	annotNoProvider  = "abx/no-provider"  // runs without a provider
	annotSettings    = "abx/settings"     // takes the provider's settings as flags, under this heading
	annotNoJSON      = "abx/no-json"      // prints no JSON, so --jq cannot filter it
	annotPassThrough = "abx/pass-through" // exits with a remote status (abxerr.Exit)
	annotStream      = "abx/stream"       // follows remote work until it ends or is stopped
)

func annotate(cmd *cobra.Command, key, value string) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[key] = value
	return cmd
}

// Capability is what the command's operation needs (Does, Serves); ""
// for none.
func Capability(cmd *cobra.Command) provider.Capability {
	if op := Admitted(cmd); op != nil {
		return op.Capability
	}
	return ""
}

// NoProvider marks a command (and what is below it) that needs no provider.
func NoProvider(cmd *cobra.Command) *cobra.Command { return annotate(cmd, annotNoProvider, "true") }

// SettingsHeading heads the provider's settings in the help of the
// commands that use a provider.
const SettingsHeading = "Provider flags (or their variables: abx help environment):"

// TakesSettings marks a command that needs no provider selected before
// it runs but reads the provider's settings from its flags ('abx login'
// saves them, 'abx config' shows them): its help lists them as a
// provider's command's does, under heading (SettingsHeading for "").
func TakesSettings(cmd *cobra.Command, heading string) *cobra.Command {
	if heading == "" {
		heading = SettingsHeading
	}
	return annotate(NoProvider(cmd), annotSettings, heading)
}

// SettingsListed is the heading under which a command's help lists the
// provider's settings: it uses a provider, or takes its settings; "" for
// a command that does neither.
func SettingsListed(cmd *cobra.Command) string {
	if h := cmd.Annotations[annotSettings]; h != "" {
		return h
	}
	if NeedsProvider(cmd) {
		return SettingsHeading
	}
	return ""
}

// NoJSON marks a command that prints no JSON: --jq is refused.
func NoJSON(cmd *cobra.Command) *cobra.Command { return annotate(cmd, annotNoJSON, "true") }

// PassThrough marks a command that exits with a remote status: abx's own
// failures exit 125 (abxerr.Exit).
func PassThrough(cmd *cobra.Command) *cobra.Command { return annotate(cmd, annotPassThrough, "true") }

// Stream marks a command that follows remote work as it goes (exec, run,
// ps attach, terminal, files watch, ...): the root has SIGHUP stop it as
// Ctrl-C does, and a write to a closed stdout fail rather than kill abx,
// so that the command stops its remote work before it exits
// (docs/exit-codes.md).
func Stream(cmd *cobra.Command) *cobra.Command { return annotate(cmd, annotStream, "true") }

// IsStream tells whether a command is marked Stream.
func IsStream(cmd *cobra.Command) bool { return cmd != nil && cmd.Annotations[annotStream] != "" }

// IsNoJSON tells whether a command prints no JSON.
func IsNoJSON(cmd *cobra.Command) bool { return cmd.Annotations[annotNoJSON] != "" }

// IsPassThrough tells whether a command passes a remote status through.
func IsPassThrough(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Annotations[annotPassThrough] != ""
}

// NeedsProvider is false for commands that work without one: help,
// version, shell completion, the emulator.
func NeedsProvider(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch {
		case c.Annotations[annotNoProvider] != "":
			return false
		case c.Name() == "help", c.Name() == "completion", c.Name() == cobra.ShellCompRequestCmd,
			c.Name() == cobra.ShellCompNoDescRequestCmd:
			return false
		}
	}
	return true
}

// Annotations a verb's flag carries for the root: what the flag asks of
// the output when it is set.
const (
	annotJSONLines = "abx/json-lines" // a bool flag that asks for JSON Lines (run-code --stream)
	annotBareIDs   = "abx/bare-ids"   // a bool flag that asks for bare IDs (create -q)
)

func annotateFlag(cmd *cobra.Command, name, key string) {
	fl := cmd.Flags().Lookup(name)
	if fl.Annotations == nil {
		fl.Annotations = map[string][]string{}
	}
	fl.Annotations[key] = []string{"true"}
}

// AsksJSONLines marks cmd's bool flag name as asking for JSON Lines: set,
// the command prints JSON, its stream's events one a line, and its errors
// as JSON.
func AsksJSONLines(cmd *cobra.Command, name string) { annotateFlag(cmd, name, annotJSONLines) }

// AsksBareIDs marks cmd's bool flag name as asking for bare IDs: set, the
// command prints its result's names alone; an -o of another form is
// refused (output.Printer.CheckForms).
func AsksBareIDs(cmd *cobra.Command, name string) { annotateFlag(cmd, name, annotBareIDs) }

// IsJSONLinesFlag and IsBareIDsFlag tell what a flag asks of the output.
func IsJSONLinesFlag(fl *pflag.Flag) bool { return len(fl.Annotations[annotJSONLines]) > 0 }

// IsBareIDsFlag tells whether a flag asks for bare IDs.
func IsBareIDsFlag(fl *pflag.Flag) bool { return len(fl.Annotations[annotBareIDs]) > 0 }
