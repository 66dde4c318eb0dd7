package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// Annotations a command carries for the root's checks.
const (
	annotCapability = "abx/capability" // the capability the command needs
	annotNoProvider = "abx/no-provider"
	annotNoJSON     = "abx/no-json"    // prints no JSON, so --jq cannot filter it
	annotOwnStatus  = "abx/own-status" // exits with a remote status; 125 is abx's failure
)

// needs declares the capability a command uses; the root checks it before
// the command runs (E8004 when the provider lacks it).
func needs(cmd *cobra.Command, c provider.Capability) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotCapability] = string(c)
	return cmd
}

// Main runs abx with the process's arguments and returns the exit status.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, output.System(), os.Args[1:])
}

// Run executes one command line and prints its error, if any, once.
func Run(ctx context.Context, io *output.Streams, args []string) int {
	f := NewFactory(io)
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if f.jq != nil {
		if jerr := f.jq.Close(ctx); jerr != nil {
			var child exitStatus
			if err == nil || errors.As(err, &child) {
				err = jqFailed(cmd, jerr)
			}
		}
	}
	if err == nil {
		return abxerr.ExitOK
	}
	var child exitStatus
	if errors.As(err, &child) {
		return int(child) // the command's own status; it has spoken for itself
	}
	e := classify(err)
	if ctx.Err() != nil && e.Code != abxerr.Interrupted {
		e = &abxerr.Error{Code: abxerr.Interrupted, Message: "interrupted", Cause: err}
	}
	// --jq asked for plain values: its errors read as one line too.
	jq := root.PersistentFlags().Lookup("jq")
	io.PrintError(e, f.Format == output.JSON && (jq == nil || !jq.Changed))
	return e.ExitCode()
}

// jqFailed reports a --jq failure; commands whose status is a remote
// one's (exec, ps attach, run-code) report it as their own failure, 125,
// even when the remote status would have been 0 or anything else.
func jqFailed(cmd *cobra.Command, err error) error {
	if cmd == nil || cmd.Annotations[annotOwnStatus] == "" {
		return err
	}
	e := *abxerr.From(err)
	e.Exit = exitExecFailed
	return &e
}

// exitStatus is an exit status that has spoken for itself (a remote
// command's, code that raised): Run passes it through and prints nothing.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

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

// NewCmdRoot builds the whole command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	var (
		providerName string
		format       string
		jqExpr       string
		noColor      bool
	)
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
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if noColor {
				f.IO.DisableColor()
			}
			fm, err := output.ParseFormat(format)
			if err != nil {
				return err
			}
			f.Format = fm
			if jqExpr != "" {
				if err := useJQ(f, cmd, jqExpr); err != nil {
					return err
				}
			}
			if !needsProvider(cmd) {
				return nil
			}
			if providerName == "" {
				providerName = os.Getenv("ABX_PROVIDER")
			}
			d, err := f.Registry.Lookup(providerName)
			if err != nil {
				return err
			}
			f.Descriptor = d
			if c := cmd.Annotations[annotCapability]; c != "" {
				return d.Check(provider.Capability(c))
			}
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&providerName, "provider", "", "sandbox provider (or ABX_PROVIDER): "+strings.Join(f.Registry.Names(), ", "))
	pf.StringVarP(&format, "output", "o", "table", "output format: table, wide, json or name")
	pf.BoolVar(&noColor, "no-color", false, "never colour the output (also NO_COLOR=1)")
	pf.StringVar(&jqExpr, "jq", "", "filter the JSON output with a jq expression; implies -o json, prints strings raw")
	pf.BoolVar(&f.Debug, "debug", false, "trace each HTTP request and response on stderr, secrets redacted")
	addProviderFlags(pf, f.Registry)
	f.flags = pf

	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return abxerr.New(abxerr.Usage, "%s", err.Error()).
			WithHint("run '%s --help' for usage", c.CommandPath())
	})

	root.AddCommand(
		NewCmdCreate(f, nil),
		NewCmdConnect(f, nil),
		NewCmdList(f, nil),
		NewCmdInfo(f, nil),
		NewCmdKill(f, nil),
		NewCmdTimeout(f, nil),
		NewCmdPause(f, nil),
		NewCmdResume(f, nil),
		NewCmdURL(f, nil),
		NewCmdExec(f, nil),
		NewCmdPs(f),
		NewCmdFiles(f),
		NewCmdRunCode(f, nil),
		NewCmdCapabilities(f),
		NewCmdConfig(f),
		NewCmdVersion(f),
		NewCmdEmulator(f),
	)
	root.AddCommand(newHelpTopics(f)...)
	root.Version = buildInfo().String()
	root.SetVersionTemplate("{{.Version}}\n")
	addUnsupportedCommands(root, f)
	addCompletions(root, f)
	markRunErrors(root)
	return root
}

// useJQ sends the command's JSON through a --jq expression, compiled
// before anything is sent.
func useJQ(f *Factory, cmd *cobra.Command, expr string) error {
	if q := cmd.Flags().Lookup("quiet"); q != nil && q.Changed {
		return abxerr.New(abxerr.Usage, "--jq and -q exclude each other: -q prints a bare ID, not JSON").
			WithHint("use --jq alone, e.g. --jq .sandboxID")
	}
	if cmd.Annotations[annotNoJSON] != "" {
		return abxerr.New(abxerr.Usage, "%s prints no JSON for --jq to filter", cmd.CommandPath()).
			WithHint("drop --jq")
	}
	if cmd.Flags().Changed("output") && f.Format != output.JSON {
		return abxerr.New(abxerr.Usage, "--jq filters JSON output; it cannot go with -o %s", f.Format).
			WithHint("drop -o: --jq implies -o json")
	}
	q, err := output.CompileJQ(expr)
	if err != nil {
		return err
	}
	f.Format = output.JSON
	f.jq = q.Filter(cmd.Context(), f.IO.Out, f.IO.StdoutTTY)
	f.IO.Out = f.jq
	return nil
}

// needsProvider is false for commands that work without one: help,
// version, shell completion.
func needsProvider(cmd *cobra.Command) bool {
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

// addProviderFlags declares every provider's settings as global flags; a
// name two providers share is declared once.
func addProviderFlags(pf *pflag.FlagSet, r *provider.Registry) {
	for _, d := range r.All() {
		for _, s := range d.Settings {
			if pf.Lookup(s.Flag) == nil {
				pf.String(s.Flag, s.Default, s.Usage)
			}
		}
	}
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
