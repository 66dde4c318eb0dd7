package sandboxes

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Create makes a sandbox. A timeout of 0 leaves the server's default;
// another is a lifetime the catalogue bounds (30 s to 30 days). An empty
// template is refused, in the words Run's refusal has.
func (s *Service) Create(ctx context.Context, req provider.CreateRequest) (*provider.Sandbox, error) {
	op := Op("sandbox.create")
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	if err := op.Input("template").CheckText(ctx, req.Template); err != nil {
		return nil, err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, req.Timeout); err != nil {
		return nil, err
	}
	if err := CheckEnv(op.Input("env").name(ctx), req.Env); err != nil {
		return nil, err
	}
	if req.Name != "" || req.GenerateName != "" {
		// A clone's name: a provider without clones has no use for it.
		if err := s.Check(provider.SandboxSnapshot); err != nil {
			return nil, err
		}
		if req.Name != "" && req.GenerateName != "" {
			return nil, abxerr.New(abxerr.InvalidInput, "a clone has a name or a generated one, not both")
		}
	}
	if err := checkMetadata(req.Metadata); err != nil {
		return nil, err
	}
	if req.Network != nil {
		// Rules a provider cannot apply are refused, never dropped: a
		// lockdown asked for and not applied is worse than none.
		if err := s.Check(provider.NetworkEgress); err != nil {
			return nil, err
		}
		if err := checkEgress(*req.Network); err != nil {
			return nil, err
		}
	}
	p, err := s.Provider()
	if err != nil {
		return nil, err
	}
	return p.Create(ctx, req)
}

// Get reads one sandbox.
func (s *Service) Get(ctx context.Context, id string) (*provider.Sandbox, error) {
	p, err := s.on(ctx, Op("sandbox.info"), id)
	if err != nil {
		return nil, err
	}
	return p.Get(ctx, id)
}

// List lists the sandboxes that match opts; their states are checked
// before anything is sent.
func (s *Service) List(ctx context.Context, opts provider.ListOptions) ([]provider.Sandbox, error) {
	op := Op("sandbox.list")
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	var states []string // each once, in the order given
	for _, st := range opts.States {
		c, err := op.Input("state").CheckChoice(ctx, st)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(states, c) {
			states = append(states, c)
		}
	}
	opts.States = states
	if err := op.Input("limit").CheckNumber(ctx, int64(opts.Limit)); err != nil {
		return nil, err
	}
	p, err := s.Provider()
	if err != nil {
		return nil, err
	}
	return p.List(ctx, opts)
}

// CheckListed refuses a listing with an ID abx would not send, before an
// operation on each listed sandbox (kill --all, metrics --all) sends any:
// a server's ID that could move the path it goes into.
func CheckListed(list []provider.Sandbox) error {
	for _, sb := range list {
		if CheckSandboxID(sb.SandboxID) != nil {
			return abxerr.New(abxerr.BadResponse, "the service listed the sandbox ID %q, which abx will not send", sb.SandboxID)
		}
	}
	return nil
}

// Kill ends a sandbox; its kept clients are dropped.
func (s *Service) Kill(ctx context.Context, id string) error {
	p, err := s.on(ctx, Op("sandbox.kill"), id)
	if err != nil {
		return err
	}
	defer s.Forget(id) // after: a call meanwhile may have kept a client again
	return p.Kill(ctx, id)
}

// SetTimeout sets a sandbox's deadline to timeout from now
// (1 s to 30 days): shorter or longer than it was.
func (s *Service) SetTimeout(ctx context.Context, id string, timeout time.Duration) error {
	op := Op("sandbox.timeout")
	p, err := s.on(ctx, op, id)
	if err != nil {
		return err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, timeout); err != nil {
		return err
	}
	return p.SetTimeout(ctx, id, timeout)
}

// Pause pauses a sandbox; its kept clients are dropped (its servers answer
// nothing until it is resumed).
func (s *Service) Pause(ctx context.Context, id string) error {
	p, err := s.on(ctx, Op("sandbox.pause"), id)
	if err != nil {
		return err
	}
	defer s.Forget(id)
	return p.Pause(ctx, id)
}

// Resume starts a paused sandbox for timeout (0: the server's default).
// Its kept clients are dropped: a resumed sandbox may be reached at
// another address, or with other tokens.
func (s *Service) Resume(ctx context.Context, id string, timeout time.Duration) error {
	op := Op("sandbox.resume")
	p, err := s.on(ctx, op, id)
	if err != nil {
		return err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, timeout); err != nil {
		return err
	}
	defer s.Forget(id)
	err = p.Resume(ctx, id, timeout)
	// The server refuses to resume a running sandbox (409, "not paused",
	// docs/protocol.md): an error still, for a script that meant to
	// resume a paused one, with the step that takes both.
	if e := abxerr.From(err); err != nil && e.Code == abxerr.Rejected && e.Status == http.StatusConflict {
		return e.Suggest(abxerr.StepConnect, id)
	}
	return err
}

// Connect makes sure the sandbox runs, resuming it if paused, and extends
// its deadline to at least timeout (0: the server's default). A sandbox it
// resumed has its kept clients dropped, as Resume does.
func (s *Service) Connect(ctx context.Context, id string, timeout time.Duration) (*provider.ConnectResult, error) {
	op := Op("sandbox.connect")
	p, err := s.on(ctx, op, id)
	if err != nil {
		return nil, err
	}
	if err := op.Input("timeout").CheckSeconds(ctx, timeout); err != nil {
		return nil, err
	}
	c, err := p.Connect(ctx, id, timeout)
	if err != nil || c.Resumed {
		s.Forget(id)
	}
	return c, err
}
