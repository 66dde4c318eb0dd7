package sandbox

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// minInterval keeps --watch from asking envd more than once a second: its
// CPU figure is measured since the previous ask, and shorter is noise.
const minInterval = time.Second

// maxInterval is the longest --interval: a sample a day.
const maxInterval = 24 * time.Hour

// MetricsOptions are the inputs of `abx metrics`.
type MetricsOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	IDs    []string
	All    bool
	Filter provider.ListOptions
	// Watch prints a sample per Interval until Ctrl-C, Count rounds, or
	// the sandboxes' end.
	Watch    bool
	Interval time.Duration
	// Count ends --watch after that many rounds; 0 for none.
	Count int
}

// metricsNames are the names of `abx metrics`, declared once: its command takes
// them, and its group's Verbs lists them.
var metricsNames = cmdutil.Names{"metrics"}

// NewCmdMetrics builds `abx metrics`.
func NewCmdMetrics(f *cmdutil.Factory, runF func(context.Context, *MetricsOptions) error) *cobra.Command {
	opts := &MetricsOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes, Interval: 2 * time.Second}
	var filter filterFlags
	var interval string
	cmd := &cobra.Command{
		Use:   metricsNames.Use("ID... | metrics --all [--state S] [--metadata k=v]... [--watch]"),
		Short: "Show sandboxes' CPU, memory and disk use",
		Long: `Show a sample of each sandbox's CPU, memory and disk use, as envd measures them inside
it: its CPUs, the percent of them in use, memory used and total, disk used and total.
Piped, each figure has a column, sizes in bytes and times in RFC 3339. On a terminal,
used and total share a column in df -h's units (211M/985M) and the time of day shows
under --watch only, so that a row fits 80 columns. -o json prints the raw numbers
(docs/json.md).

--watch prints a sample per --interval (default 2s, 1s to 24h) until Ctrl-C, --count
rounds, or the end of the sandboxes (then it says so), and exits 0 however of these it
ends; -o json then prints JSON Lines. Several IDs, or --all with the list's filters, print one row per sandbox,
asked concurrently.

A paused sandbox has no sample: among several it has a row with its state and no
figures, abx says so on stderr, and exits 0 for --all, 6 for a sandbox named. A sandbox that does not exist exits 3. An envd that does not serve metrics, or
answers something abx cannot read, exits 1 naming envd's version (docs/metrics.md).`,
		Example: `  abx metrics "$id"
  abx metrics "$id" --watch --interval 5s
  abx metrics --all --metadata owner=ci -o json | jq -r '.[] | select(.cpuUsedPct > 90) | .sandboxID'
  abx metrics "$id" -o json | jq .memUsed`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.All && len(args) > 0:
				return cmdutil.UsageError(cmd, "give sandbox IDs or --all, not both")
			case !opts.All && len(args) == 0:
				return cmdutil.UsageError(cmd, "metrics needs sandbox IDs or --all")
			case !opts.All && filter.set():
				return cmdutil.UsageError(cmd, "--state and --metadata filter --all")
			case !opts.Watch && (cmd.Flags().Changed("interval") || cmd.Flags().Changed("count")):
				return cmdutil.UsageError(cmd, "--interval and --count go with --watch")
			}
			var err error
			if opts.IDs, err = cmdutil.SandboxIDs(args); err != nil {
				return err
			}
			if opts.Filter, err = filter.parse(); err != nil {
				return err
			}
			if cmd.Flags().Changed("interval") {
				if opts.Interval, err = cmdutil.ParseDurationIn("--interval", interval, minInterval, maxInterval, ""); err != nil {
					return err
				}
			}
			if opts.Count < 0 {
				return abxerr.New(abxerr.InvalidInput, "invalid --count %d: not a number of samples", opts.Count).
					WithHint("give a positive number, or leave --count out to watch until Ctrl-C")
			}
			return cmdutil.Run(cmd, opts, runF, runMetrics)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "every sandbox matching --state and --metadata")
	filter.add(cmd)
	fl.BoolVarP(&opts.Watch, "watch", "w", false, "print a sample per --interval until Ctrl-C")
	fl.StringVar(&interval, "interval", "2s", "time between samples of --watch (1s to 24h)")
	fl.IntVarP(&opts.Count, "count", "n", 0, "stop --watch after this many samples of each sandbox, exit 0 (default: no limit)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.CompleteFlag(cmd, "state", cmdutil.CommaList(sandboxes.States))
	return cmdutil.Does(cmd, "sandbox.metrics")
}

// sampler takes the rounds of `abx metrics`.
type sampler struct {
	opts *MetricsOptions
	take *sandboxes.Service
}

// keepClients is how long --watch keeps a sandbox's envd client between
// rounds: one request a sample, not two. A sample that fails drops it.
const keepClients = 10 * time.Minute

func runMetrics(ctx context.Context, opts *MetricsOptions) error {
	s := &sampler{opts: opts, take: opts.Sandboxes.Keeping(keepClients)}
	if opts.Watch {
		return s.watch(ctx)
	}
	targets, err := s.targets(ctx)
	if err != nil {
		return err
	}
	if targets == nil {
		opts.Printer.Note("no sandboxes match")
		return opts.Printer.Print([]sandboxes.Sample{}, nil, nil)
	}
	samples, err := s.take.Sample(ctx, targets...)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.print(samples)
}

// targets are the sandboxes named, or those --all lists now (nil: none).
func (s *sampler) targets(ctx context.Context) ([]sandboxes.Target, error) {
	if !s.opts.All {
		out := make([]sandboxes.Target, len(s.opts.IDs))
		for i, id := range s.opts.IDs {
			out[i] = sandboxes.Target{ID: id}
		}
		return out, nil
	}
	list, err := s.opts.Sandboxes.List(ctx, s.opts.Filter)
	if err != nil {
		return nil, err
	}
	// An ID from the service goes into a URL: one that could change the
	// path is not sent (as kill --all).
	if err := sandboxes.CheckListed(list); err != nil {
		return nil, err
	}
	var out []sandboxes.Target
	for _, sb := range list {
		out = append(out, sandboxes.Target{ID: sb.SandboxID, State: sb.State})
	}
	return out, nil
}

// print prints one round without --watch. One sandbox named: its object,
// or its error alone. Several, or --all: the list (a paused sandbox with
// its state, one gone as ended, so that a program sees every one: a row
// of the table as an element of the JSON), a note
// for each without a sample, and one error that sums up those named that
// had none (--all's paused ones are no failure).
func (s *sampler) print(samples []sandboxes.Sample) error {
	if !s.opts.All && len(samples) == 1 {
		sm := samples[0]
		switch {
		case sm.State == sandboxes.Paused:
			return provider.PausedError(sm.SandboxID)
		case sm.Err != nil:
			return sm.Err
		}
		return s.opts.Printer.Print(sm, []string{sm.SandboxID}, func() error {
			t := s.opts.Printer.Table(s.header()...)
			t.Row(s.cells(sm)...)
			return t.Render()
		})
	}
	shown := []sandboxes.Sample{}
	var failed []sandboxes.Sample
	var names []string
	for _, sm := range samples {
		switch {
		case sm.State == sandboxes.Paused:
			s.opts.Printer.Note("sandbox %s is paused: no sample until 'abx resume %s'", sm.SandboxID, sm.SandboxID)
			if !s.opts.All {
				failed = append(failed, sm)
			}
		case sm.State == sandboxes.Ended:
			s.opts.Printer.Note("sandbox %s not found", sm.SandboxID)
			failed = append(failed, sm)
		case sm.Err != nil:
			s.opts.Printer.Note("no sample of %s: %s", sm.SandboxID, abxerr.From(sm.Err).Message)
			failed = append(failed, sm)
			continue // nothing to say of it in the list but what the error says
		default:
			names = append(names, sm.SandboxID)
		}
		shown = append(shown, sandboxes.Sample{SandboxID: sm.SandboxID, State: sm.State, Figures: sm.Figures})
	}
	err := s.opts.Printer.Print(shown, names, func() error {
		t := s.opts.Printer.Table(s.header()...)
		for _, sm := range shown {
			t.Row(s.cells(sm)...)
		}
		return t.Render()
	})
	if err != nil {
		return err
	}
	return roundError(failed, len(samples))
}

// roundError sums up the sandboxes that had no sample in one error, whose
// code is the gravest of theirs: a failure of the service or of envd, then
// a sandbox gone (exit 3), then a paused one (E2001, exit 6).
func roundError(failed []sandboxes.Sample, of int) error {
	if len(failed) == 0 {
		return nil
	}
	rank := func(sm sandboxes.Sample) int {
		switch sm.State {
		case sandboxes.Paused:
			return 0
		case sandboxes.Ended:
			return 1
		}
		return 2
	}
	worst := failed[0]
	ids := make([]string, len(failed))
	for i, sm := range failed {
		ids[i] = sm.SandboxID
		if rank(sm) > rank(worst) {
			worst = sm
		}
	}
	code := abxerr.Paused
	switch rank(worst) {
	case 1:
		code = abxerr.NotFound
	case 2:
		code = abxerr.From(worst.Err).Code
	}
	return abxerr.New(code, "%d of %s had no sample: %s", len(failed), human.Count(of, "sandbox", "sandboxes"), strings.Join(ids, ", ")).
		WithHint("the notes above say why for each")
}

// metricsHeader names the columns of a sample for programs (piped): every
// figure apart, in bytes.
var metricsHeader = []string{"sandbox id", "state", "time", "cpus", "cpu %", "mem used", "mem total", "disk used", "disk total"}

// header names the columns of a sample. On a terminal a row must fit 80
// columns with a cluster's sandbox ID (docs/metrics.md): used and total
// share a cell in df's short units, and the time, which is now for a
// single round, shows only under --watch, where it tells rounds apart.
func (s *sampler) header() []string {
	switch {
	case !s.opts.IO.StdoutTTY:
		return metricsHeader
	case s.opts.Watch:
		return []string{"sandbox id", "state", "time", "cpus", "cpu %", "memory", "disk"}
	}
	return []string{"sandbox id", "state", "cpus", "cpu %", "memory", "disk"}
}

// cells are a sample's row, under header's columns: sizes for people on
// a terminal, bytes when piped. A sandbox without a sample (paused,
// ended) has its state and a dash for each figure.
func (s *sampler) cells(sm sandboxes.Sample) []string {
	io := s.opts.IO
	f := sm.Figures
	row := []string{sm.SandboxID, io.State(sm.State)}
	if f == nil {
		for range len(s.header()) - len(row) {
			row = append(row, "-")
		}
		return row
	}
	cpu := []string{strconv.Itoa(f.CPUCount), strconv.FormatFloat(f.CPUUsedPct, 'f', 1, 64)}
	if !io.StdoutTTY {
		row = append(row, f.Timestamp.UTC().Format(time.RFC3339))
		row = append(row, cpu...)
		return append(row, io.Bytes(f.MemUsed), io.Bytes(f.MemTotal), io.Bytes(f.DiskUsed), io.Bytes(f.DiskTotal))
	}
	if s.opts.Watch {
		row = append(row, f.Timestamp.Local().Format("15:04:05"))
	}
	row = append(row, cpu...)
	return append(row, human.ShortBytes(f.MemUsed)+"/"+human.ShortBytes(f.MemTotal),
		human.ShortBytes(f.DiskUsed)+"/"+human.ShortBytes(f.DiskTotal))
}

// watch prints a round per interval through the stream sink.
func (s *sampler) watch(ctx context.Context) error {
	st := s.opts.Printer.Stream(output.StreamSpec{Header: s.header()})
	defer st.Discard()
	ended := map[string]bool{}
	paused := map[string]bool{}
	sampled := map[string]bool{}
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for rounds := 0; ; {
		targets, err := s.targets(ctx)
		switch {
		case err != nil && (rounds == 0 || ctx.Err() != nil || !passing(err)):
			return s.watchEnd(ctx, err)
		case err != nil:
			// --all's listing failed in a way that may pass: the next round
			// lists again.
			s.opts.Printer.Note("could not list the sandboxes this time: %s", abxerr.From(err).Message)
			targets = nil
		}
		live := targets[:0:0]
		for _, tg := range targets {
			if !ended[tg.ID] {
				live = append(live, tg)
			}
		}
		if err := s.watchRound(ctx, st, live, watchState{ended, paused, sampled}); err != nil {
			return s.watchEnd(ctx, err)
		}
		if rounds++; s.opts.Count > 0 && rounds >= s.opts.Count {
			return nil
		}
		if !s.opts.All && len(ended) == len(s.opts.IDs) {
			return nil
		}
		select {
		case <-ctx.Done():
			return s.watchEnd(ctx, ctx.Err())
		case <-t.C:
		}
	}
}

// watchRound prints one round of --watch: a row per sandbox running, a
// note when one pauses or ends. An envd whose answer abx cannot read ends
// the watch; other failures are noted and asked again next round.
func (s *sampler) watchRound(ctx context.Context, st *output.Stream, targets []sandboxes.Target, w watchState) error {
	samples, err := s.take.Sample(ctx, targets...)
	if err != nil {
		return err
	}
	for _, sm := range samples {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var err error
		switch {
		case sm.State == sandboxes.Ended && !w.sampled[sm.SandboxID] && !s.opts.All:
			return sm.Err // a sandbox named that never was: not found, exit 3
		case sm.State == sandboxes.Ended:
			w.ended[sm.SandboxID] = true
			err = st.Note(sm, "sandbox %s ended", sm.SandboxID)
		case sm.State == sandboxes.Paused:
			w.sampled[sm.SandboxID] = true
			if !w.paused[sm.SandboxID] {
				w.paused[sm.SandboxID] = true
				err = st.Note(sm, "sandbox %s is paused: no samples until it is resumed", sm.SandboxID)
			}
		case sm.Fatal():
			return sm.Err
		case sm.Err != nil:
			s.opts.Printer.Note("no sample of %s this time: %s", sm.SandboxID, abxerr.From(sm.Err).Message)
		default:
			w.sampled[sm.SandboxID] = true
			delete(w.paused, sm.SandboxID)
			err = st.Row(sm, s.cells(sm)...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// passing says whether a failure may pass by itself: the network, or the
// service failing.
func passing(err error) bool {
	c := abxerr.From(err).Code
	return c == abxerr.Network || c == abxerr.Server || c == abxerr.Timeout
}

// watchState is what --watch remembers between rounds, by sandbox ID:
// which ended (no longer asked), which are paused (said once), which gave
// a sample or were seen paused (so an end is an end, not a wrong ID).
type watchState struct{ ended, paused, sampled map[string]bool }

// watchEnd is the error --watch ends with: none at Ctrl-C, which is how a
// command that runs until interrupted is meant to end (docs/exit-codes.md).
func (s *sampler) watchEnd(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
