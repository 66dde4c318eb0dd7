// Package root is abx's command tree: the root command, the global flags,
// the checks every command goes through before it runs, and the one place
// where an outcome becomes output and an exit status.
package root

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// Main runs abx with the process's arguments and returns the exit status.
func Main() int {
	ctx := newInterruptContext(context.Background())
	defer ctx.stop()
	ctx.catchIfIgnored(signal.Ignored)
	return Run(ctx, output.System(), nil, os.Args[1:])
}

// Run executes one command line over these streams and this environment
// (nil: the process's), and prints its error, if any, once.
func Run(ctx context.Context, io *output.Streams, getenv func(string) string, args []string) int {
	f := factory.New(io, getenv, factory.Options{Completing: isCompletion(args)})
	t := newTree(f)
	t.lazy(args)
	root := t.root
	root.SetArgs(negativeValues(root, args))
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	var held *bytes.Buffer
	if t.runsRoot {
		held = &bytes.Buffer{}
		root.SetOut(held)
	}
	root.SetErr(f.IO.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if held != nil {
		if err == nil && printsVersion(root) {
			held.Reset()
			fmt.Fprintln(held, meta.BuildInfo())
		}
		_, _ = f.IO.Out.Write(held.Bytes())
	}
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
	if output.Closed(err) {
		// The reader went away: a pipeline's member stays quiet then.
		return abxerr.ExitOutputClosed
	}
	e := classify(err)
	if ctx.Err() != nil && e.Code != abxerr.Interrupted {
		e = &abxerr.Error{Code: abxerr.Interrupted, Message: "interrupted", Cause: err}
	}
	cliHint(e)
	exit := abxerr.Exit(e, passThrough)
	f.Printer.Error(e, exit)
	return exit
}

// isCompletion tells a shell's request for completions (cobra's
// __complete), which every shell's script puts first: a line typed with
// __complete further on is no Tab, and is run as any other.
func isCompletion(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// cobra prints --version through SetVersionTemplate's text/template,
// which links the template executor and with it reflect's MethodByName:
// the linker then keeps every exported method of every type abx links (19
// MB against 15 MB, and some 60 more pages touched at every start). So
// cobra is given a stand-in, and what it prints for the root, the only
// command with --version, is held: in its place Run prints the version,
// read (debug.ReadBuildInfo) only then.
const versionByRun = "(printed by Run)"

// printsVersion tells whether cobra, having run the root without an
// error, printed its version: --version set, and --help, which outranks
// it, not.
func printsVersion(root *cobra.Command) bool {
	v, err := root.Flags().GetBool("version")
	h, _ := root.Flags().GetBool("help")
	return err == nil && v && !h
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
	{ID: cmdutil.GroupSandboxes, Title: "Sandboxes:"},
	{ID: cmdutil.GroupInside, Title: "Inside a sandbox:"},
	{ID: cmdutil.GroupLocal, Title: "On this machine:"},
	{ID: cmdutil.GroupSettings, Title: "Settings and information:"},
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
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return g.apply(f, cmd, args)
		},
	}
	pf := root.PersistentFlags()
	g.format = f.Printer.FormatValue()
	pf.VarP(g.format, "output", "o", "output format: table, wide, json or name")
	pf.BoolVar(&g.noColor, "no-color", false, "never colour the output (also NO_COLOR=1)")
	pf.StringVar(&g.jq, "jq", "", "filter the JSON output with a jq expression; implies -o json, prints strings raw (controls escaped on a terminal)")
	pf.AddFlagSet(f.Flags)

	root.SetFlagErrorFunc(flagError)
	root.AddGroup(groups...)
	// Set, so that cobra adds and reads --version; Run prints the version
	// itself (see printsVersion).
	root.Version = versionByRun
	root.SetHelpCommandGroupID(cmdutil.GroupSettings)
	root.SetCompletionCommandGroupID(cmdutil.GroupSettings)
	setUsage(root)
	return &tree{f: f, root: root, verbs: verbs(), built: map[string]bool{}}
}

// flagError keeps a flag value's own error (-o's "unknown output format")
// with its hint; pflag wraps it in words of its own. A value of the wrong
// kind for its flag (--limit abc) is said in abx's words, naming the flag,
// where pflag would quote strconv.
func flagError(c *cobra.Command, err error) error {
	var e *abxerr.Error
	if errors.As(err, &e) {
		return e
	}
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		if want, ok := flagKinds[bad.GetFlag().Value.Type()]; ok {
			name := "--" + bad.GetFlag().Name
			return abxerr.New(abxerr.InvalidInput, "invalid %s %q: not %s", name, bad.GetValue(), want).
				WithHint("give %s %s (see '%s --help')", name, want, c.CommandPath())
		}
	}
	return abxerr.New(abxerr.Usage, "%s", err.Error()).
		WithHint("run '%s --help' for usage", c.CommandPath())
}

// flagKinds say what a flag's value must be, by pflag's name of its type.
var flagKinds = map[string]string{
	"int": "a whole number", "int8": "a whole number", "int16": "a whole number", "int32": "a whole number", "int64": "a whole number",
	"uint": "a whole number", "uint8": "a whole number", "uint16": "a whole number", "uint32": "a whole number", "uint64": "a whole number",
	"float32": "a number", "float64": "a number",
	"bool":     "true or false",
	"duration": "a duration (90s, 5m, 2h)",
}

// globals are the root's own flags, applied before any command runs.
type globals struct {
	format  *output.FormatFlag
	jq      string
	noColor bool
}

// apply settles the output for the whole run, then selects the provider
// and checks the command's capability, before anything is sent.
func (g *globals) apply(f *cmdutil.Factory, cmd *cobra.Command, args []string) error {
	if ic, ok := cmd.Context().(*interruptContext); ok && cmdutil.IsStream(cmd) {
		ic.streams()
	}
	if g.noColor {
		f.IO.DisableColor()
	}
	if err := f.Printer.CheckForms(g.format.Given()); err != nil {
		return err
	}
	if g.jq != "" {
		if err := useJQ(f, cmd, g); err != nil {
			return err
		}
	}
	if !cmdutil.NeedsProvider(cmd) {
		return nil
	}
	if _, err := f.Selected(); err != nil {
		return err
	}
	if op := cmdutil.Admitted(cmd); op != nil {
		// The operation's own check, before the command reads its input;
		// its errors then name its inputs as this command takes them.
		ctx, err := f.Sandboxes.Admit(cmd.Context(), op)
		if err != nil {
			return err
		}
		cmd.SetContext(sandboxes.WithSpelling(ctx, cmdutil.Spelling(cmd, args)))
		return nil
	}
	return nil
}

// useJQ sends the command's JSON through a --jq expression, compiled
// before anything is sent.
func useJQ(f *cmdutil.Factory, cmd *cobra.Command, g *globals) error {
	f.Printer.PlainErrors()
	if cmdutil.IsNoJSON(cmd) {
		return abxerr.New(abxerr.Usage, "%s prints no JSON for --jq to filter", cmd.CommandPath()).
			WithHint("drop --jq")
	}
	q, err := output.CompileJQ(g.jq)
	if err != nil {
		return err
	}
	return f.Printer.FilterJQ(cmd.Context(), q, g.format.Given())
}

// wireOutputFlags makes the flags a command's verbs mark as asking
// something of the output (cmdutil.AsksJSONLines, AsksBareIDs) tell the
// printer as they are parsed, as -o does, so that even a command line
// refused after them has its error in their form.
func wireOutputFlags(cmd *cobra.Command, p *output.Printer) {
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		switch {
		case cmdutil.IsJSONLinesFlag(fl):
			fl.Value = &askingFlag{Value: fl.Value, ask: func(on bool) { p.AskJSONLinesAs("--"+fl.Name, on) }}
		case cmdutil.IsBareIDsFlag(fl):
			name := "--" + fl.Name
			if fl.Shorthand != "" {
				name = "-" + fl.Shorthand
			}
			fl.Value = &askingFlag{Value: fl.Value, ask: func(on bool) { p.AskBareIDs(name, on) }}
		}
	})
	for _, sub := range cmd.Commands() {
		wireOutputFlags(sub, p)
	}
}

// askingFlag is a bool flag's value that tells the printer what it asks
// as it is set (--stream, --stream=false).
type askingFlag struct {
	pflag.Value
	ask func(on bool)
}

func (a *askingFlag) Set(s string) error {
	if err := a.Value.Set(s); err != nil {
		return err
	}
	a.ask(a.String() == "true")
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
