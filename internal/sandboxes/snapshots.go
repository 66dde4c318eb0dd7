package sandboxes

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// Snapshots of sandboxes (docs/snapshots.md): one taken of a running
// sandbox, listed, deleted; a clone is a sandbox made from one (Create with
// the snapshot's ID as its template, and its name); a fork is a snapshot
// that keeps its sandbox running, then clones of it made at once.

// Inputs of the snapshot operations.
var (
	snapshotIDInput = Input{Name: "snapshot", Kind: Text, Required: true,
		Hint: "pass a snapshot ID as 'abx snapshot list' shows it"}
	// A snapshot's time to live: the server reads a Go duration; a
	// sandbox's longest lifetime is long enough for any.
	snapshotTTL = Input{Name: "ttl", Kind: Seconds, Min: 1, Max: 30 * 24 * 3600,
		Hint: "give how long the snapshot is kept, e.g. 24h; none keeps it until deleted", Unset: "until deleted"}
	snapshotWait = Input{Name: "wait", Kind: Seconds, Min: 1, Max: 3600,
		Hint: "give how long the server waits for the snapshot, at most an hour", Unset: "the server's default, 60 s"}
	snapshotContents = Input{Name: "contents", Kind: Text,
		Hint: "use filesystem, memory, or both, comma-separated"}
	forkCount = Input{Name: "count", Kind: Number, Min: 1, Max: MaxForks,
		Hint: "give how many clones to make, 1 to 50"}
)

// MaxForks bounds the clones one fork makes: each is a sandbox, made at
// once; more is a loop of forks, or a template.
const MaxForks = 50

// forkAtOnce bounds the clones being made at the same time.
const forkAtOnce = 8

var _ = declare(
	// The engine's routes of E2B's API are its own table's (a fork's
	// answer, a template's route for a delete).
	&Operation{Name: "sandbox.snapshot", Capability: provider.SandboxSnapshot, Func: "Snapshot",
		Inputs: []Input{idInput, {Name: "keep_running", Kind: Flag}, snapshotTTL, snapshotContents, snapshotWait}},
	&Operation{Name: "snapshots.list", Capability: provider.SandboxSnapshot, Func: "Snapshots", ReadOnly: true,
		Inputs: []Input{{Name: "sandbox", Kind: Text}, {Name: "limit", Kind: Number, Min: 1, Max: 100000,
			Hint: "give how many snapshots to list at most"}}},
	&Operation{Name: "snapshots.delete", Capability: provider.SandboxSnapshot, Func: "DeleteSnapshot",
		Inputs: []Input{snapshotIDInput}},
	&Operation{Name: "sandbox.fork", Capability: provider.SandboxSnapshot, Func: "Fork", Lifecycle: true,
		Inputs: []Input{idInput, forkCount, createLifetime, metadataInput}},
)

// snapshots is the provider's snapshots, once the capability is checked.
func (s *Service) snapshots(ctx context.Context, op *Operation) (provider.Snapshots, error) {
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	p, err := s.Provider()
	if err != nil {
		return nil, err
	}
	sp, ok := p.(provider.Snapshots)
	if !ok {
		return nil, abxerr.New(abxerr.Unsupported, "the provider does not take snapshots")
	}
	return sp, nil
}

// Snapshot takes a snapshot of a running sandbox.
func (s *Service) Snapshot(ctx context.Context, id string, opts provider.SnapshotOptions) (*provider.Snapshot, error) {
	op := Op("sandbox.snapshot")
	sp, err := s.snapshots(ctx, op)
	if err != nil {
		return nil, err
	}
	if err := provider.CheckSandboxID(id); err != nil {
		return nil, err.Suggest(abxerr.StepList, "")
	}
	if err := op.Input("ttl").CheckSeconds(ctx, opts.TTL); err != nil {
		return nil, err
	}
	if err := op.Input("wait").CheckSeconds(ctx, opts.Wait); err != nil {
		return nil, err
	}
	if opts.Contents, err = checkContents(op.Input("contents"), opts.Contents); err != nil {
		return nil, err
	}
	if opts.KeepRunning != nil && !*opts.KeepRunning {
		// The sandbox does not run on: what a client holds of it goes.
		defer s.Forget(id)
	}
	return sp.Snapshot(ctx, id, opts)
}

// checkContents refuses what a snapshot cannot hold, as the server would,
// before anything is sent; each once, in the order given.
func checkContents(in *Input, list []string) ([]string, error) {
	var out []string
	for _, c := range list {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" {
			continue
		}
		if c != "filesystem" && c != "memory" {
			return nil, abxerr.New(abxerr.InvalidInput, "invalid --%s %q", in.Name, c).WithHint(in.Hint)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Snapshots lists the snapshots, all or one sandbox's.
func (s *Service) Snapshots(ctx context.Context, opts provider.SnapshotListOptions) ([]provider.Snapshot, error) {
	op := Op("snapshots.list")
	sp, err := s.snapshots(ctx, op)
	if err != nil {
		return nil, err
	}
	if opts.SandboxID != "" {
		if err := provider.CheckSandboxID(opts.SandboxID); err != nil {
			return nil, err.Suggest(abxerr.StepList, "")
		}
	}
	if opts.Limit != 0 {
		if err := op.Input("limit").CheckNumber(ctx, int64(opts.Limit)); err != nil {
			return nil, err
		}
	}
	return sp.Snapshots(ctx, opts)
}

// DeleteSnapshot deletes a snapshot; one that is not there is no error
// (the server cannot tell).
func (s *Service) DeleteSnapshot(ctx context.Context, snapshotID string) error {
	sp, err := s.snapshots(ctx, Op("snapshots.delete"))
	if err != nil {
		return err
	}
	if err := provider.CheckSnapshotID(snapshotID); err != nil {
		return err
	}
	return sp.DeleteSnapshot(ctx, snapshotID)
}

// ForkRequest is what each clone of a fork is made with.
type ForkRequest struct {
	Count    int
	Timeout  time.Duration // 0: the server's default
	Metadata map[string]string
}

// Forked is a fork's outcome: its snapshot, the clones made, and the
// error of each one that was not.
type Forked struct {
	SandboxID  string              `json:"sandboxID"`
	SnapshotID string              `json:"snapshotID"`
	Clones     []*provider.Sandbox `json:"clones"`
	Failed     []ForkFailure       `json:"failed,omitempty"`
}

// ForkFailure is a clone a fork could not make.
type ForkFailure struct {
	Error string `json:"error"`
	err   error
}

// Err is the failure's error, as the provider gave it.
func (f ForkFailure) Err() error { return f.err }

// Fork takes a snapshot of a running sandbox that keeps it running, then
// makes Count clones of it, at most forkAtOnce at a time. A clone that
// fails is reported with the others kept; the snapshot stays (a clone of
// it may be made again).
func (s *Service) Fork(ctx context.Context, id string, req ForkRequest) (*Forked, error) {
	op := Op("sandbox.fork")
	if _, err := s.snapshots(ctx, op); err != nil {
		return nil, err
	}
	if err := provider.CheckSandboxID(id); err != nil {
		return nil, err.Suggest(abxerr.StepList, "")
	}
	if err := op.Input("count").CheckNumber(ctx, int64(req.Count)); err != nil {
		return nil, err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, req.Timeout); err != nil {
		return nil, err
	}
	if err := checkMetadata(req.Metadata); err != nil {
		return nil, err
	}
	keep := true
	snap, err := s.Snapshot(ctx, id, provider.SnapshotOptions{KeepRunning: &keep})
	if err != nil {
		return nil, err
	}
	p, err := s.Provider()
	if err != nil {
		return nil, err
	}
	out := &Forked{SandboxID: id, SnapshotID: snap.SnapshotID, Clones: make([]*provider.Sandbox, req.Count)}
	errs := make([]error, req.Count)
	sem := make(chan struct{}, forkAtOnce)
	var wg sync.WaitGroup
	for i := range req.Count {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out.Clones[i], errs[i] = p.Create(ctx, provider.CreateRequest{Template: snap.SnapshotID,
				Timeout: req.Timeout, Metadata: req.Metadata})
		})
	}
	wg.Wait()
	made := out.Clones[:0]
	for i, c := range out.Clones {
		if errs[i] != nil {
			out.Failed = append(out.Failed, ForkFailure{Error: abxerr.From(errs[i]).Message, err: errs[i]})
			continue
		}
		made = append(made, c)
	}
	out.Clones = made
	return out, nil
}

// checkMetadata refuses metadata keys the server reserves, before
// anything is sent.
func checkMetadata(md map[string]string) error {
	for k := range md {
		if k == e2bapi.MetadataSandboxName || k == e2bapi.MetadataSandboxGenerateName {
			return abxerr.New(abxerr.InvalidInput, "invalid metadata key %q", k).
				WithHint("a clone's name is --name or --generate-name")
		}
	}
	return nil
}
