// Package root is abx's command tree: the root command, the global flags,
// the checks every command goes through before it runs, and the one place
// where an outcome becomes output and an exit status.
package root

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// Main runs abx with the process's arguments and returns the exit status.
func Main() int {
	ctx := newInterruptContext(context.Background())
	defer ctx.stop()
	return Run(ctx, cmdutil.New(output.System(), nil), os.Args[1:])
}

// Run executes one command line and prints its error, if any, once.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	t := newTree(f)
	t.lazy(args)
	root := t.root
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	// A --jq failure outranks success and a remote status, not abx's own
	// failure, which already says what went wrong.
	if jerr := f.Printer.Close(ctx); jerr != nil && (err == nil || errors.As(err, new(abxerr.Status))) {
		err = jerr
	}
	if err == nil {
		return abxerr.ExitOK
	}
	passThrough := cmdutil.IsPassThrough(cmd)
	if errors.As(err, new(abxerr.Status)) {
		return abxerr.Exit(err, passThrough) // it has spoken for itself
	}
	e := classify(err)
	if ctx.Err() != nil && e.Code != abxerr.Interrupted {
		e = &abxerr.Error{Code: abxerr.Interrupted, Message: "interrupted", Cause: err}
	}
	exit := abxerr.Exit(e, passThrough)
	if fm, ok := formatOfWords(args); !applied(cmd) && ok {
		// cobra refused the line before the root could read -o: read it
		// from the words, so that a JSON reader gets its JSON error.
		f.Printer.SetFormat(fm)
	}
	f.Printer.Error(e, exit)
	return exit
}

// applied tells whether the root's flags were applied (its pre-run ran).
func applied(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Root().Annotations[annotApplied] != ""
}

const annotApplied = "abx/applied"

// formatOfWords reads the output format from a command line cobra did not
// parse to the end: -o (in any of its spellings), or --stream, before --.
func formatOfWords(args []string) (output.Format, bool) {
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[:i]
	}
	if slices.Contains(args, "--stream") {
		return output.JSON, true
	}
	for i, a := range args {
		var word string
		switch {
		case (a == "-o" || a == "--output") && i+1 < len(args):
			word = args[i+1]
		case strings.HasPrefix(a, "--output="):
			word = strings.TrimPrefix(a, "--output=")
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--"):
			word = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "=")
		default:
			continue
		}
		fm, err := output.ParseFormat(word)
		return fm, err == nil
	}
	return "", false
}

// runError marks errors that come out of a command's RunE, as opposed to the
// ones cobra raises while parsing (which are usage errors).
type runError struct{ err error }

func (r runError) Error() string { return r.err.Error() }
func (r runError) Unwrap() error { return r.err }

func classify(err error) *abxerr.Error {
	var re runError
	if errors.As(err, &re) {
		return abxerr.From(re.err)
	}
	var e *abxerr.Error
	if errors.As(err, &e) {
		return e
	}
	msg := err.Error()
	hint := "run 'abx --help' for usage"
	if strings.HasPrefix(msg, "unknown command") {
		hint = "run 'abx --help' to see the commands"
	}
	return abxerr.New(abxerr.Usage, "%s", msg).WithHint("%s", hint)
}

// The groups of commands, as 'abx --help' lists them.
var groups = []*cobra.Group{
	{ID: "sandboxes", Title: "Sandboxes:"},
	{ID: "inside", Title: "Inside a sandbox:"},
	{ID: "local", Title: "On this machine:"},
	{ID: "settings", Title: "Settings and information:"},
}

// NewCmdRoot builds the whole command tree.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	t := newTree(f)
	t.complete()
	return t.root
}

// newTree builds the root, with its flags and nothing below it.
func newTree(f *cmdutil.Factory) *tree {
	var g globals
	root := &cobra.Command{
		Use:   "abx",
		Short: "Manage cloud sandboxes and work inside them",
		Long: `abx manages cloud sandboxes and works inside them, from a terminal, a shell script
or an agent pipeline. Every command prints a table for people or JSON for programs
(-o json), and exits with a documented status (abx help exit-codes).`,
		Example: `  export ABX_PROVIDER=alicloud-container
  export ABX_ALICLOUD_CONTAINER_DOMAIN=agents.example.com
  export ABX_ALICLOUD_CONTAINER_API_KEY=...
  id=$(abx create --template code-interpreter -q)
  abx list -o json | jq -r '.[].sandboxID'
  abx kill "$id"`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		Annotations:       map[string]string{},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			cmd.Root().Annotations[annotApplied] = "true"
			return g.apply(f, cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.provider, "provider", "", "sandbox provider (or ABX_PROVIDER): "+strings.Join(f.Registry.Names(), ", "))
	pf.StringVarP(&g.format, "output", "o", "table", "output format: table, wide, json or name")
	pf.BoolVar(&g.noColor, "no-color", false, "never colour the output (also NO_COLOR=1)")
	pf.StringVar(&g.jq, "jq", "", "filter the JSON output with a jq expression; implies -o json, prints strings raw")
	pf.BoolVar(&f.Debug, "debug", false, "trace each HTTP request and response on stderr, secrets redacted")
	cmdutil.AddProviderFlags(pf, f.Registry)
	f.Flags = pf

	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return abxerr.New(abxerr.Usage, "%s", err.Error()).
			WithHint("run '%s --help' for usage", c.CommandPath())
	})

	root.AddGroup(groups...)
	root.Version = meta.BuildInfo().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetHelpCommandGroupID("settings")
	root.SetCompletionCommandGroupID("settings")
	setUsage(root)
	return &tree{f: f, root: root, built: make([]bool, len(topCommands))}
}

// globals are the root's own flags, applied before any command runs.
type globals struct {
	provider, format, jq string
	noColor              bool
}

// apply resolves the output once for the whole run, then selects the
// provider and checks the command's capability, before anything is sent.
func (g *globals) apply(f *cmdutil.Factory, cmd *cobra.Command) error {
	if g.noColor {
		f.IO.DisableColor()
	}
	fm, err := output.ParseFormat(g.format)
	if err != nil {
		return err
	}
	f.Printer.SetFormat(fm)
	if s := cmd.Flags().Lookup("stream"); s != nil && s.Changed && s.Value.String() == "true" {
		f.Printer.SetFormat(output.JSON) // JSON Lines events, and JSON errors with them
	}
	if g.jq != "" {
		if err := useJQ(f, cmd, fm, g.jq); err != nil {
			return err
		}
	}
	if !cmdutil.NeedsProvider(cmd) {
		return nil
	}
	d, err := f.SelectProvider()
	if err != nil {
		return err
	}
	if c := cmdutil.Capability(cmd); c != "" {
		return d.Check(c)
	}
	return nil
}

// useJQ sends the command's JSON through a --jq expression, compiled
// before anything is sent.
func useJQ(f *cmdutil.Factory, cmd *cobra.Command, fm output.Format, expr string) error {
	f.Printer.PlainErrors()
	if q := cmd.Flags().Lookup("quiet"); q != nil && q.Changed {
		return abxerr.New(abxerr.Usage, "--jq and -q exclude each other: -q prints a bare ID, not JSON").
			WithHint("use --jq alone, e.g. --jq .sandboxID")
	}
	if cmdutil.IsNoJSON(cmd) {
		return abxerr.New(abxerr.Usage, "%s prints no JSON for --jq to filter", cmd.CommandPath()).
			WithHint("drop --jq")
	}
	if cmd.Flags().Changed("output") && fm != output.JSON {
		return abxerr.New(abxerr.Usage, "--jq filters JSON output; it cannot go with -o %s", fm).
			WithHint("drop -o: --jq implies -o json")
	}
	q, err := output.CompileJQ(expr)
	if err != nil {
		return err
	}
	f.Printer.FilterJQ(cmd.Context(), q)
	return nil
}

// markRunErrors wraps every RunE so that Run can tell a command's own
// failures from cobra's parsing errors.
func markRunErrors(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := run(c, args); err != nil {
				return runError{err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markRunErrors(sub)
	}
}
