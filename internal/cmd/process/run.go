package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/transfer"
)

// RunOptions are the inputs of `abx run`.
type RunOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	Request provider.CreateRequest
	Puts    []Copy
	Gets    []Copy
	// Lease is the sandbox's lifetime while abx runs, renewed every third
	// of it (docs/run.md).
	Lease time.Duration
	// Timeout bounds the job, from its start to the command's end; 0: no
	// bound.
	Timeout time.Duration
	// Keep leaves the sandbox running afterwards, with KeepFor to live.
	Keep    bool
	KeepFor time.Duration

	Argv        []string
	Cwd         string
	User        string
	Interactive bool
	TTY         bool
	// Signals are Ctrl-C, SIGTERM and SIGHUP; nil: the process's own.
	Signals <-chan os.Signal

	// fetchWithin stands in for fetchBound, in tests; zero: fetchBound.
	fetchWithin time.Duration
}

// Copy is one --put (Local to Remote) or --get (Remote to Local).
type Copy struct{ Local, Remote string }

// runNames are the names of `abx run`, declared once.
var runNames = cmdutil.Names{"run"}

// DefaultLease is --lease's default (sandboxes.DefaultLease).
const DefaultLease = sandboxes.DefaultLease

// fetchBound bounds the fetching of --get results once a signal or a lost
// lease stopped the job, as sandboxes.EndBound bounds the sandbox's end.
const fetchBound = sandboxes.EndBound

// NewCmdRun builds `abx run`.
func NewCmdRun(f *cmdutil.Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var metadata, env, puts, gets []string
	var lease, timeout, keepFor string
	cmd := &cobra.Command{
		Use:   runNames.Use("--template T [flags] -- CMD [ARG...]"),
		Short: "Run a command in a throwaway sandbox: create, copy in, run, copy out, kill",
		Long: `Run one job in a sandbox of its own, as 'docker run --rm' does: create it, copy the
--put files in, run the command as exec does, copy the --get results out (also when the
command failed or timed out), and kill the sandbox, whatever happens.

The sandbox is made with a short lifetime, the lease (--lease, default 60s), which abx
renews every third of it while it runs: if abx dies by any means (SIGKILL, a power cut,
a lost network), the service ends the sandbox within the lease. --timeout bounds the
job, from its start to the command's end (124 when it passes). Ctrl-C, SIGTERM and
SIGHUP stop the command as exec's Ctrl-C does, then abx still fetches the results
(within 30 s) and kills the sandbox. --keep leaves it running instead, for --keep-for
(default 5m), and prints its ID.

-t runs the command on a terminal, as exec -t does; Ctrl-P Ctrl-Q are keys for it there,
not a detach: the sandbox goes with the command, and nothing would be left to get back to.

--put LOCAL:REMOTE and --get REMOTE:LOCAL follow 'abx files cp': a directory is copied
with its tree, a destination that is a directory receives the file under its own name.
A --get whose path the command did not make is said in a note, not a failure.

Exit status: the command's (exec's rules: 128+n after signal n, 124 after --timeout,
127 not found, 130 after Ctrl-C); 125 when abx itself failed; a sandbox that could not
be made exits as create does (3 for a template the service does not have).

-o json prints JSON Lines: {"type":"created","sandboxID":…}, {"type":"put",…}, exec's
start, stdout, stderr and end events, {"type":"get",…}, then {"type":"killed",…},
{"type":"kept",…}, or {"type":"gone",…} when the sandbox had ended already (docs/run.md).`,
		Example: `  abx run --template base -- uname -a
  abx run --template base --put ./src:/home/user/src --get /home/user/src/report.xml:. -- 'cd src && make test'
  abx run --template code-interpreter --timeout 10m --put job.py:job.py -- python3 job.py
  abx run --template base -it -- bash`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || cmd.ArgsLenAtDash() != 0 {
				return cmdutil.UsageError(cmd, "abx run needs a command after --")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sandboxes.CheckTemplate(opts.Request.Template); err != nil {
				return err
			}
			var err error
			if opts.Lease, err = cmdutil.ParseLifetime("--lease", lease, sandboxes.MinLease); err != nil {
				return err
			}
			if cmd.Flags().Changed("timeout") {
				if opts.Timeout, err = cmdutil.ParseProcessTimeout("--timeout", timeout); err != nil {
					return err
				}
			}
			if opts.KeepFor, err = cmdutil.ParseLifetime("--keep-for", keepFor, sandboxes.MinLifetime); err != nil {
				return err
			}
			if cmd.Flags().Changed("keep-for") && !opts.Keep {
				return cmdutil.UsageError(cmd, "--keep-for goes with --keep")
			}
			if opts.Request.Metadata, err = cmdutil.ParseKeyValues("--metadata", metadata); err != nil {
				return err
			}
			if opts.Request.Env, err = cmdutil.ParseKeyValues("--env", env); err != nil {
				return err
			}
			if err := sandboxes.CheckUser("--user", opts.User); err != nil {
				return err
			}
			if opts.Puts, err = parseCopies("--put", puts, false); err != nil {
				return err
			}
			if opts.Gets, err = parseCopies("--get", gets, true); err != nil {
				return err
			}
			if err := sandboxes.CheckCommand("the command", args); err != nil {
				return err.WithHint("give the command after --, as in 'abx run --template base -- ls -la'; a variable that holds it may be unset")
			}
			opts.Argv = args
			return cmdutil.Run(cmd, opts, runF, runRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Request.Template, "template", "", "template to start from (required)")
	fl.StringArrayVar(&metadata, "metadata", nil, "metadata KEY=VALUE to attach (repeatable)")
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE for the sandbox's processes (repeatable)")
	fl.BoolVar(&opts.Request.NoInternet, "no-internet", false, "deny the sandbox access to the internet")
	fl.StringArrayVar(&puts, "put", nil, "copy LOCAL:REMOTE into the sandbox before the command (repeatable)")
	fl.StringArrayVar(&gets, "get", nil, "copy REMOTE:LOCAL out of the sandbox after the command, also when it failed (repeatable)")
	fl.StringVar(&lease, "lease", DefaultLease.String(), "the sandbox's lifetime while abx runs, renewed every third of it (30s or more)")
	fl.StringVar(&timeout, "timeout", "", "bound the job, from its start to the command's end (default: no bound)")
	fl.BoolVar(&opts.Keep, "keep", false, "leave the sandbox running afterwards, and print its ID")
	fl.StringVar(&keepFor, "keep-for", "5m", "with --keep, how long the sandbox lives on")
	fl.StringVarP(&opts.Cwd, "cwd", "w", "", "working directory in the sandbox (default: the user's home)")
	fl.StringVarP(&opts.User, "user", "u", "", `Linux user to run as (default "user")`)
	fl.BoolVarP(&opts.Interactive, "interactive", "i", false, "stream abx's stdin to the command, its end included")
	fl.BoolVarP(&opts.TTY, "tty", "t", false, "run the command on a terminal of this one's size (docs/terminal.md)")
	cmdutil.CompleteFlag(cmd, "template", cmdutil.Choices("base\tcommon template name", "code-interpreter\tcommon template name"))
	cmdutil.PassThrough(cmd)
	cmdutil.Stream(cmd)
	return cmdutil.Needs(cmd, provider.SandboxLifecycle)
}

// parseCopies reads --put LOCAL:REMOTE (remoteFirst false) or --get
// REMOTE:LOCAL, split at the first colon (after a Windows drive's).
func parseCopies(flag string, values []string, remoteFirst bool) ([]Copy, error) {
	var out []Copy
	for _, v := range values {
		skip := 0
		if !remoteFirst && runtime.GOOS == "windows" && len(v) > 2 && v[1] == ':' {
			skip = 2
		}
		i := strings.IndexByte(v[skip:], ':')
		if i < 0 || i == 0 || skip+i == len(v)-1 {
			shape := "LOCAL:REMOTE"
			if remoteFirst {
				shape = "REMOTE:LOCAL"
			}
			return nil, abxerr.New(abxerr.InvalidInput, "invalid %s %q: want %s", flag, v, shape)
		}
		a, b := v[:skip+i], v[skip+i+1:]
		c := Copy{Local: a, Remote: b}
		if remoteFirst {
			c = Copy{Local: b, Remote: a}
		}
		if err := transfer.CheckRemotePath(c.Remote); err != nil {
			return nil, err
		}
		if !remoteFirst {
			if _, err := os.Stat(c.Local); err != nil {
				return nil, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", c.Local, transfer.LocalReason(err))
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// Events of run's JSON Lines, around exec's own (docs/run.md).
type (
	createdEvent struct {
		Type      string `json:"type"`
		SandboxID string `json:"sandboxID"`
		Lease     int    `json:"leaseSeconds"`
	}
	copyEvent struct {
		Type   string `json:"type"`
		Local  string `json:"local"`
		Remote string `json:"remote"`
		Files  int    `json:"files"`
		// Links counts the symbolic links a put made (none: absent).
		Links int    `json:"links,omitempty"`
		Error string `json:"error,omitempty"`
	}
	doneEvent struct {
		Type      string `json:"type"`
		SandboxID string `json:"sandboxID"`
		Error     string `json:"error,omitempty"`
	}
)

// stopper turns Ctrl-C, SIGTERM and SIGHUP into a stop: the first cancels
// the job's own steps and each is passed on to the command as exec's
// Ctrl-C, so that a second one still kills it at once. A lost lease stops
// the job the same way.
type stopper struct {
	ctx    context.Context
	cancel context.CancelFunc
	toExec chan os.Signal

	mu     sync.Mutex
	reason error
}

func newStopper(parent context.Context, signals <-chan os.Signal) (*stopper, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	s := &stopper{ctx: ctx, cancel: cancel, toExec: make(chan os.Signal, 4)}
	release := func() {}
	if signals == nil {
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		release = func() { signal.Stop(ch) }
		signals = ch
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-signals:
				s.stop(abxerr.New(abxerr.Interrupted, "interrupted"), sig)
			case <-done:
				return
			}
		}
	}()
	return s, func() { close(done); release() }
}

// stop records the first reason and passes a Ctrl-C to the command.
func (s *stopper) stop(reason error, sig os.Signal) {
	s.mu.Lock()
	if s.reason == nil {
		s.reason = reason
	}
	s.mu.Unlock()
	s.cancel()
	select {
	case s.toExec <- sig:
	default:
	}
}

func (s *stopper) stopped() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

func runRun(ctx context.Context, opts *RunOptions) error {
	// The puts, the command and the gets reach the sandbox through one
	// kept client: the sandbox is read once, not once a step.
	opts.Sandboxes = opts.Sandboxes.Keeping(opts.Lease)
	st, release := newStopper(ctx, opts.Signals)
	defer release()
	out := opts.Printer.Stream(output.StreamSpec{})
	start := time.Now()
	var keep time.Duration
	if opts.Keep {
		keep = opts.KeepFor
	}
	var cmdErr, getErr error
	var id string
	end, err := opts.Sandboxes.Throwaway(st.ctx, opts.Request, opts.Lease, keep, func(ctx context.Context, sb *provider.Sandbox) error {
		id = sb.SandboxID
		// A lost lease stops the job as a Ctrl-C does, with its own reason.
		defer context.AfterFunc(ctx, func() {
			if cause := context.Cause(ctx); errors.Is(cause, sandboxes.ErrLeaseLost) {
				st.stop(cause, os.Interrupt)
			}
		})()
		opts.Printer.Note("sandbox %s created (lease %s, renewed while abx runs)", id, opts.Lease)
		if err := out.Event(createdEvent{Type: "created", SandboxID: id, Lease: int(opts.Lease / time.Second)}); err != nil {
			return err
		}
		var ran bool
		ran, cmdErr = opts.job(st, out, id, start)
		getErr = opts.fetch(st, out, id, ran)
		return nil
	})
	if end == nil {
		if r := st.stopped(); r != nil {
			return r
		}
		// As create says it: its own code and status, not 125.
		e := *abxerr.From(err)
		e.Exit = e.Code.ExitCode()
		return &e
	}
	opts.ended(out, id, end)
	switch {
	case st.stopped() != nil:
		return st.stopped()
	case err != nil:
		return err
	case cmdErr != nil:
		return cmdErr
	case getErr != nil:
		return getErr
	case end.Kept:
		return end.Err
	}
	return nil
}

// job copies the --put files in and runs the command, as exec does; ran
// says whether the command was started (its results are then fetched,
// whatever its end).
func (opts *RunOptions) job(st *stopper, out *output.Stream, id string, start time.Time) (ran bool, err error) {
	if len(opts.Puts) > 0 {
		c, err := opts.Sandboxes.Envd(st.ctx, id, opts.User, provider.FilesRW)
		if err != nil {
			return false, err
		}
		cp := cmdutil.Copier(opts.IO, c, id, opts.Sandboxes.Supports(provider.ExecRun))
		for _, p := range opts.Puts {
			// A directory goes with its tree, a file as itself.
			res, err := cp.CopyUp(st.ctx, p.Local, p.Remote, true)
			cmdutil.NoteSkipped(opts.Printer, res)
			if err != nil {
				return false, err
			}
			opts.Printer.Note("put %s into %s:%s", cmdutil.Carried(res), id, res.Remote)
			if err := out.Event(copyEvent{Type: "put", Local: res.Local, Remote: res.Remote, Files: res.Files, Links: res.Links}); err != nil {
				return false, err
			}
		}
	}
	if st.stopped() != nil {
		return false, st.stopped()
	}
	eo := &ExecOptions{IO: opts.IO, Printer: opts.Printer, Sandboxes: opts.Sandboxes, ID: id, Argv: opts.Argv,
		Cwd: opts.Cwd, User: opts.User, Interactive: opts.Interactive, TTY: opts.TTY, Signals: st.toExec,
		Throwaway: true}
	if opts.Timeout > 0 {
		left := opts.Timeout - time.Since(start)
		if left < time.Second {
			return false, abxerr.New(abxerr.Timeout, "the job did not finish within %s: the command was not started", opts.Timeout)
		}
		eo.Timeout = left
	}
	// The command's own context is never cancelled here: a stop reaches
	// it as exec's Ctrl-C (toExec), so that it ends as exec's does.
	err = runExec(context.WithoutCancel(st.ctx), eo)
	if errors.Is(err, remoteproc.ErrTimedOut) {
		// The command had what was left of the bound: say the bound given.
		err = &abxerr.Error{Code: abxerr.Timeout, Cause: err,
			Message: fmt.Sprintf("the job did not finish within %s (--timeout): the command was killed", opts.Timeout)}
	}
	return true, err
}

// fetch copies the --get results out: after a failing command too, and
// within fetchBound once stopped. A path the command did not make is said
// in a note.
func (opts *RunOptions) fetch(st *stopper, out *output.Stream, id string, ran bool) error {
	if len(opts.Gets) == 0 || !ran {
		return nil
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(st.ctx))
	defer cancel()
	// Once stopped, before the fetch or during it, it has fetchBound left.
	bound := fetchBound
	if opts.fetchWithin > 0 {
		bound = opts.fetchWithin
	}
	defer context.AfterFunc(st.ctx, func() { time.AfterFunc(bound, cancel) })()
	c, err := opts.Sandboxes.Envd(ctx, id, opts.User, provider.FilesRW)
	if err != nil {
		return err
	}
	cp := cmdutil.Copier(opts.IO, c, id, false)
	var first error
	for _, g := range opts.Gets {
		res, err := cp.CopyDown(ctx, g.Remote, g.Local, true)
		cmdutil.NoteSkipped(opts.Printer, res)
		ev := copyEvent{Type: "get", Local: res.Local, Remote: g.Remote, Files: res.Files, Links: res.Links}
		switch {
		case err == nil:
			opts.Printer.Note("got %s from %s:%s", cmdutil.Carried(res), id, g.Remote)
		case abxerr.From(err).Code == abxerr.NotFound:
			ev.Error = abxerr.From(err).Message
			opts.Printer.Note("no %s:%s to get: %s", id, g.Remote, abxerr.From(err).Message)
		default:
			ev.Error = abxerr.From(err).Message
			opts.Printer.Note("could not get %s:%s: %s", id, g.Remote, abxerr.From(err).Message)
			if first == nil {
				first = err
			}
		}
		if err := out.Event(ev); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ended says how the sandbox ended: killed (a kill that failed is a
// note: its lease ends it), gone before abx killed it, or kept, with its
// lifetime.
func (opts *RunOptions) ended(out *output.Stream, id string, end *sandboxes.Ending) {
	ev := doneEvent{Type: "killed", SandboxID: id}
	switch {
	case end.Kept:
		ev.Type = "kept"
	case end.Gone:
		ev.Type = "gone"
	}
	if end.Err != nil {
		ev.Error = abxerr.From(end.Err).Message
	}
	switch {
	case end.Kept && end.Err == nil:
		opts.Printer.Note("sandbox %s kept, for %s: 'abx kill %s' ends it", id, opts.KeepFor, id)
	case end.Gone:
		opts.Printer.Note("sandbox %s had ended already (killed from elsewhere, or its lifetime passed)", id)
	case !end.Kept && end.Err != nil:
		opts.Printer.Note("could not kill sandbox %s: %s; its lease ends it within %s", id, ev.Error, opts.Lease)
	case !end.Kept:
		opts.Printer.Note("sandbox %s killed", id)
	}
	_ = out.Event(ev)
}
