package sandboxes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// Job is a throwaway job (sandbox.run): a sandbox of its own, made with a
// lease; files put in; a command run, as Exec runs it; results got out,
// also when the command failed; the sandbox killed, whatever happened
// (docs/run.md). The doors give their own steps: the command line copies
// local trees and shows the command on a terminal, the MCP tool writes and
// reads text and captures the output.
type Job struct {
	// Sandbox is made as Create makes one (its template, environment for
	// every process, metadata, network); its lifetime is the lease.
	Sandbox provider.CreateRequest
	// Lease is the sandbox's lifetime while the job runs, renewed every
	// third of it (Hold): 30 s at least; 0 is DefaultLease.
	Lease time.Duration
	// Keep, when not 0, leaves the sandbox running afterwards with that
	// lifetime, instead of killing it.
	Keep time.Duration
	// Timeout bounds the job, from its start to the command's end (a
	// process's bound: 1 s to 24 h); 0: none. The command gets what is
	// left of it.
	Timeout time.Duration
	// Command is what runs, its output to Sink. Its Timeout and Signals
	// are the job's.
	Command Command
	Sink    remoteproc.Sink
	// Signals stop the job: the step under way ends, and each signal
	// reaches the command as a Ctrl-C (Exec's), so that a second one kills
	// it at once. ctx's end stops it once, as a signal does.
	Signals <-chan os.Signal

	// Created hears of the sandbox as soon as it is made; its error ends
	// the job.
	Created func(sb *provider.Sandbox) error
	// Put copies files in before the command, with the sandbox's envd
	// client as the command's user; its error ends the job, the command
	// not run.
	Put func(ctx context.Context, id string, c *envd.Client) error
	// Ended hears how the command ended, before anything else happens;
	// its error (the door could not say it) is the command's when the
	// command had none.
	Ended func(x *Execution, err error) error
	// Get copies results out once the command ran, however it ended, with
	// what is left of EndBound once the job was stopped. What it could not
	// get is the door's to say.
	Get func(ctx context.Context, id string, c *envd.Client)
}

// Ran is how a throwaway job went.
type Ran struct {
	// SandboxID is the sandbox's; "" when none was made.
	SandboxID string
	// Execution is the command's; nil when it did not run.
	Execution *Execution
	// End is how the sandbox ended; nil when none was made.
	End *Ending
}

// Run runs a throwaway job. Everything it is given is checked before
// anything is made: the template, the command, the job's bound, the lease
// and the keep, and the capabilities of every step (sandboxes, exec, and
// files when files go in or out). It returns how the job went, and its
// failure, the first of: what stopped it (a signal, ctx's end: E7001; a
// lost lease: E5001), the sandbox's creation (create's error), the door's
// Created or Put, the command's own failure (not its exit status, which
// is in the Execution), the envd client of the Get step. A sandbox left
// running with Keep whose lifetime could not be set says so in End.Err.
func (s *Service) Run(ctx context.Context, job Job) (*Ran, error) {
	op := Op("sandbox.run")
	if err := s.checkJob(ctx, op, &job); err != nil {
		return &Ran{}, err
	}
	lease := job.Lease
	// The puts, the command and the gets reach the sandbox through one
	// kept client: the sandbox is read once, not once a step.
	w := s.Keeping(lease)
	st, release := newStop(ctx, job.Signals)
	defer release()
	ran := &Ran{}
	var cmdErr, getErr error
	start := time.Now()
	end, err := w.throwaway(st.ctx, job.Sandbox, lease, job.Keep, func(ctx context.Context, sb *provider.Sandbox) error {
		ran.SandboxID = sb.SandboxID
		// A lost lease stops the job as a signal does, with its own reason.
		defer context.AfterFunc(ctx, func() {
			if cause := context.Cause(ctx); errors.Is(cause, ErrLeaseLost) {
				st.stop(cause, os.Interrupt)
			}
		})()
		if job.Created != nil {
			if err := job.Created(sb); err != nil {
				return err
			}
		}
		if job.Put != nil {
			c, err := w.Envd(st.ctx, sb.SandboxID, job.Command.User, provider.FilesRW)
			if err != nil {
				return err
			}
			if err := job.Put(st.ctx, sb.SandboxID, c); err != nil {
				return err
			}
		}
		if r := st.stopped(); r != nil {
			return r
		}
		ran.Execution, cmdErr = w.runCommand(ctx, op, st, &job, sb.SandboxID, start)
		if job.Ended != nil {
			if herr := job.Ended(ran.Execution, cmdErr); herr != nil && cmdErr == nil {
				cmdErr = herr
			}
		}
		if job.Get != nil && ran.Execution != nil {
			getErr = w.fetch(st, &job, sb.SandboxID)
		}
		return nil
	})
	ran.End = end
	switch {
	case st.stopped() != nil:
		return ran, st.stopped()
	case end == nil:
		// A sandbox that could not be made fails as create does, with its
		// code's status, not with that of a command that never ran.
		e := *abxerr.From(err)
		e.Exit = e.Code.ExitCode()
		return ran, &e
	case err != nil:
		return ran, err
	case cmdErr != nil:
		return ran, cmdErr
	}
	return ran, getErr
}

// checkJob checks a job before anything is made, and sets its lease.
func (s *Service) checkJob(ctx context.Context, op *Operation, job *Job) error {
	if err := s.begin(ctx, op); err != nil {
		return err
	}
	// Every step's capability, before a sandbox is made for nothing.
	if err := s.Check(provider.ExecRun); err != nil {
		return err
	}
	if job.Put != nil || job.Get != nil {
		if err := s.Check(provider.FilesRW); err != nil {
			return err
		}
	}
	if err := op.Input("template").CheckText(ctx, job.Sandbox.Template); err != nil {
		return err
	}
	if err := checkCommand(ctx, op, job.Command.Argv, job.Command.Cwd, job.Command.User); err != nil {
		return err
	}
	env := op.Input("env").name(ctx)
	if err := CheckEnv(env, job.Sandbox.Env); err != nil {
		return err
	}
	if err := CheckEnv(env, job.Command.Env); err != nil {
		return err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, job.Timeout); err != nil {
		return err
	}
	if err := op.Input("lease").CheckSeconds(ctx, job.Lease); err != nil {
		return err
	}
	if err := op.Input("keep").CheckSeconds(ctx, job.Keep); err != nil {
		return err
	}
	if job.Lease == 0 {
		job.Lease = DefaultLease
	}
	return nil
}

// runCommand runs the job's command in sandbox id with what is left of
// its bound, and says a bound that passed as the job's.
func (s *Service) runCommand(ctx context.Context, op *Operation, st *stop, job *Job, id string, start time.Time) (*Execution, error) {
	cmd := job.Command
	cmd.Signals, cmd.Timeout, cmd.Background = st.toExec, 0, false
	if job.Timeout > 0 {
		left := job.Timeout - time.Since(start)
		if left < time.Second {
			return nil, abxerr.New(abxerr.Timeout, "the job did not finish within %s: the command was not started", job.Timeout)
		}
		cmd.Timeout = left
	}
	c, err := s.Envd(st.ctx, id, cmd.User, provider.ExecRun)
	if err != nil {
		return &Execution{}, err
	}
	// The command's own context is never cancelled here: a stop reaches
	// it as a Ctrl-C (st.toExec), so that it ends as exec's does.
	x, err := s.execute(context.WithoutCancel(st.ctx), id, c, cmd, job.Sink)
	if errors.Is(err, remoteproc.ErrTimedOut) || (cmd.Terminal != nil && errors.Is(err, context.DeadlineExceeded)) {
		// The command had what was left of the bound: say the bound given.
		in := op.Input("timeout")
		bound := job.Timeout.String()
		if typed := in.given(ctx); typed != "" {
			bound = typed
		}
		err = &abxerr.Error{Code: abxerr.Timeout, Cause: err,
			Message: fmt.Sprintf("the job did not finish within %s (%s): the command was killed", bound, in.name(ctx))}
	}
	return x, err
}

// fetch hands the door's Get the sandbox's client: after a failing
// command too, and within EndBound once the job was stopped (before the
// fetch or during it).
func (s *Service) fetch(st *stop, job *Job, id string) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(st.ctx))
	defer cancel()
	defer context.AfterFunc(st.ctx, func() { time.AfterFunc(EndBound, cancel) })()
	c, err := s.Envd(ctx, id, job.Command.User, provider.FilesRW)
	if err != nil {
		return err
	}
	job.Get(ctx, id, c)
	return nil
}

// stop ends a throwaway job early: a signal of the door's, its context's
// end, a lost lease. The first records why; each ends the step under way
// (ctx) and reaches the command as a Ctrl-C (toExec).
type stop struct {
	ctx    context.Context
	cancel context.CancelFunc
	toExec chan os.Signal

	mu     sync.Mutex
	reason error
}

func newStop(parent context.Context, signals <-chan os.Signal) (*stop, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	st := &stop{ctx: ctx, cancel: cancel, toExec: make(chan os.Signal, 4)}
	done := make(chan struct{})
	go func() {
		ended := parent.Done()
		for {
			select {
			case sig := <-signals:
				st.stop(abxerr.New(abxerr.Interrupted, "interrupted"), sig)
			case <-ended:
				ended = nil // once: it stays done
				st.stop(abxerr.From(parent.Err()), os.Interrupt)
			case <-done:
				return
			}
		}
	}()
	return st, func() { close(done); cancel() }
}

// stop records the first reason and passes a Ctrl-C to the command.
func (st *stop) stop(reason error, sig os.Signal) {
	st.mu.Lock()
	if st.reason == nil {
		st.reason = reason
	}
	st.mu.Unlock()
	st.cancel()
	select {
	case st.toExec <- sig:
	default:
	}
}

func (st *stop) stopped() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.reason
}
