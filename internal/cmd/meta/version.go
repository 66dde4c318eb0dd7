package meta

import (
	"context"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// Stamped by the release build (goreleaser.yaml) with -ldflags -X.
var (
	version = ""
	commit  = ""
	date    = ""
)

// VersionInfo is what abx was built from.
type VersionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// BuildInfo falls back to what the Go toolchain recorded, so that a
// `go install`ed abx still says which module version and revision it is.
// A release stamps all three, and does not read (parse) the record.
func BuildInfo() VersionInfo {
	v := VersionInfo{Version: version, Commit: commit, Date: date}
	if v.Version != "" && v.Commit != "" && v.Date != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && v.Commit == "":
				v.Commit = s.Value
			case s.Key == "vcs.time" && v.Date == "":
				v.Date = s.Value
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	return v
}

func (v VersionInfo) String() string {
	s := "abx " + v.Version
	if v.Commit != "" {
		s += " (" + v.Commit
		if v.Date != "" {
			s += ", " + v.Date
		}
		s += ")"
	}
	return s
}

// VersionOptions are the inputs of `abx version`.
type VersionOptions struct {
	Printer *output.Printer
}

// versionNames are the names of `abx version`, declared once: its command takes
// them, and its group's Verbs lists them.
var versionNames = cmdutil.Names{"version"}

// NewCmdVersion builds `abx version`.
func NewCmdVersion(f *cmdutil.Factory, runF func(context.Context, *VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   versionNames.Use(""),
		Short: "Show abx's version, commit and build date",
		Long: `Show abx's version, and the commit and time it was built from when they are known. A
release shows its number; 'go install github.com/abx-dev/abx/cmd/abx@VERSION' shows VERSION;
any other build shows dev, with the revision Go recorded from the checkout. It needs no
provider and sends no request.`,
		Example: "  abx version\n  abx version -o json | jq -r .version",
		Args:    cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdutil.Run(cmd, opts, runF, runVersion)
		},
	}
	return cmdutil.NoProvider(cmd)
}

func runVersion(_ context.Context, opts *VersionOptions) error {
	v := BuildInfo()
	return opts.Printer.Print(v, []string{v.String()}, func() error { return opts.Printer.Line(v.String()) })
}

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	group := cmdutil.GroupSettings
	return []cmdutil.Verb{
		{Names: capabilitiesNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdCapabilities(f, nil) }},
		{Names: configNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdConfig(f, nil) }},
		{Names: versionNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdVersion(f, nil) }},
	}
}
