package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/interrupt"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// killConcurrency bounds the deletes in flight: enough to clear a hundred
// sandboxes quickly, few enough not to trip the server's rate limits.
const killConcurrency = 8

// KillOptions are the inputs of `abx kill`.
type KillOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	IDs            []string
	All            bool
	Filter         provider.ListOptions
	Yes            bool
	IgnoreNotFound bool
}

// killResult is one line of `abx kill -o json` (docs/json.md).
type killResult struct {
	SandboxID string       `json:"sandboxID"`
	Status    string       `json:"status"` // killed, not_found or failed
	Error     *resultError `json:"error,omitempty"`

	err *abxerr.Error
}

type resultError struct {
	Code      abxerr.Code `json:"code"`
	Message   string      `json:"message"`
	RequestID string      `json:"requestID,omitempty"`
}

// killNames are the names of `abx kill`, declared once: its command takes
// them, and its group's Verbs lists them.
var killNames = cmdutil.Names{"kill"}

// NewCmdKill builds `abx kill`.
func NewCmdKill(f *cmdutil.Factory, runF func(context.Context, *KillOptions) error) *cobra.Command {
	opts := &KillOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var filter filterFlags
	cmd := &cobra.Command{
		Use:   killNames.Use("ID... | kill --all [--state S] [--metadata k=v]... [--yes]"),
		Short: "Kill sandboxes",
		Long: `Kill the named sandboxes, or with --all every sandbox that matches the filters.

--all asks for confirmation on a terminal and needs --yes otherwise. A sandbox that is
already gone is reported and makes abx exit 3, unless --ignore-not-found.`,
		Example: `  abx kill "$id"
  abx kill --all --metadata owner=ci --yes
  abx list --state paused -o name | xargs -r abx kill`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.All && len(args) > 0:
				return cmdutil.UsageError(cmd, "give sandbox IDs or --all, not both")
			case !opts.All && len(args) == 0:
				return cmdutil.UsageError(cmd, "kill needs sandbox IDs or --all")
			case !opts.All && filter.set():
				return cmdutil.UsageError(cmd, "--state and --metadata filter --all")
			}
			var err error
			if opts.IDs, err = cmdutil.SandboxIDs(args); err != nil {
				return err
			}
			if opts.Filter, err = filter.parse(); err != nil {
				return err
			}
			if opts.All && !opts.Yes && !(opts.IO.StdinTTY && opts.IO.StderrTTY) {
				return abxerr.New(abxerr.ConfirmationRequired, "kill --all needs --yes when not run from a terminal").
					WithHint("add --yes to confirm; nothing was killed")
			}
			return cmdutil.Run(cmd, opts, runF, runKill)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "kill every sandbox matching --state and --metadata")
	filter.add(cmd)
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.BoolVar(&opts.IgnoreNotFound, "ignore-not-found", false, "treat a sandbox that is already gone as killed")
	cmd.ValidArgsFunction = completeKill(f)
	cmdutil.CompleteFlag(cmd, "state", cmdutil.CommaList(sandboxes.Op("sandbox.list").Input("state").Enum))
	return cmdutil.Does(cmd, "sandbox.kill")
}

func runKill(ctx context.Context, opts *KillOptions) error {
	ids := opts.IDs
	if opts.All {
		list, err := opts.Sandboxes.List(ctx, opts.Filter)
		if err != nil {
			return err
		}
		ids = make([]string, len(list))
		for i, s := range list {
			ids[i] = s.SandboxID
		}
		if len(ids) == 0 {
			opts.Printer.Note("no sandboxes match")
			return printKillResults(opts, nil)
		}
		if !opts.Yes {
			if err := confirm(ctx, opts.IO, ids); err != nil {
				return err
			}
		}
	}

	results := make([]killResult, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(killConcurrency)
	for i, id := range ids {
		g.Go(func() error {
			results[i] = killOne(gctx, opts.Sandboxes, id, opts.IgnoreNotFound)
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range results {
		switch r.Status {
		case "killed":
			opts.Printer.Note("sandbox %s killed", r.SandboxID)
		case "not_found":
			if opts.IgnoreNotFound {
				opts.Printer.Note("sandbox %s already gone", r.SandboxID)
			}
		}
	}
	if err := printKillResults(opts, results); err != nil {
		return err
	}
	return killError(results, opts.IgnoreNotFound)
}

func killOne(ctx context.Context, svc *sandboxes.Service, id string, ignoreNotFound bool) killResult {
	// An ID --all got from the service goes into a URL's path: one that
	// could change the path (.., a slash) is not sent. The user's own
	// were checked before anything was sent.
	err := sandboxes.CheckListed([]provider.Sandbox{{SandboxID: id}})
	if err != nil {
		err = abxerr.From(err).WithHint("the service's listing is malformed; this sandbox was not killed")
	} else {
		err = svc.Kill(ctx, id)
	}
	if err == nil {
		return killResult{SandboxID: id, Status: "killed"}
	}
	e := abxerr.From(err)
	r := killResult{SandboxID: id, Status: "failed", err: e}
	if e.Code == abxerr.NotFound {
		r.Status = "not_found"
	}
	if r.Status == "failed" || !ignoreNotFound {
		r.Error = &resultError{Code: e.Code, Message: e.Message, RequestID: e.RequestID}
	}
	return r
}

// printKillResults prints what became of each sandbox for programs, and
// the IDs killed for -o name; people read the notes.
func printKillResults(opts *KillOptions, results []killResult) error {
	if results == nil {
		results = []killResult{}
	}
	var killed []string
	for _, r := range results {
		if r.Status == "killed" {
			killed = append(killed, r.SandboxID)
		}
	}
	return opts.Printer.Print(results, killed, nil)
}

// killError sums up what could not be killed in the one error abx prints:
// a failure of the service outranks a sandbox that was already gone.
func killError(results []killResult, ignoreNotFound bool) error {
	var bad, missing []killResult
	for _, r := range results {
		switch {
		case r.Status == "failed":
			bad = append(bad, r)
		case r.Status == "not_found" && !ignoreNotFound:
			missing = append(missing, r)
		}
	}
	bad = append(bad, missing...)
	if len(bad) == 0 {
		return nil
	}
	first := *bad[0].err
	if len(bad) == 1 {
		return &first
	}
	parts := make([]string, len(bad))
	for i, r := range bad {
		parts[i] = r.SandboxID + ": " + r.err.Message
	}
	first.Message = fmt.Sprintf("%d of %s not killed: %s", len(bad), human.Count(len(results), "sandbox", "sandboxes"), strings.Join(parts, "; "))
	return &first
}

// confirm asks on the terminal before --all kills anything; Ctrl-C while
// it waits for the answer stops there (E7001), nothing killed.
func confirm(ctx context.Context, io *output.Streams, ids []string) error {
	shown := make([]string, 0, 5)
	for _, id := range ids[:min(len(ids), 5)] {
		shown = append(shown, io.Safe(id)) // the server's IDs, on a terminal
	}
	more := ""
	if len(ids) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
	}
	_, _ = fmt.Fprintf(io.ErrOut, "Kill %s (%s%s)? [y/N] ", human.Count(len(ids), "sandbox", "sandboxes"), strings.Join(shown, ", "), more)
	// End of input without an answer is a no.
	line, _ := bufio.NewReader(interrupt.Reader(ctx, io.In)).ReadString('\n')
	if ctx.Err() != nil {
		return abxerr.New(abxerr.Interrupted, "interrupted: nothing was killed")
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return abxerr.New(abxerr.ConfirmationRequired, "not confirmed: nothing was killed").
		WithHint("answer y, or pass --yes")
}

// completeKill completes every argument of kill, leaving out the IDs
// already given; --all takes none.
func completeKill(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if cmd.Flags().Changed("all") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return cmdutil.SandboxCandidates(cmd, f, toComplete, "", nil, args), cobra.ShellCompDirectiveNoFileComp
	}
}
