package sandboxes

import (
	"net/http"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Service runs the operations on the selected provider. A door makes one
// and keeps it for as long as it serves: the command line for one run,
// the MCP server and the engine for their lives. Its fields are set
// before its first operation and never after.
type Service struct {
	// Descriptor is the selected provider: the capabilities every
	// operation checks before any I/O.
	Descriptor func() (*provider.Descriptor, error)
	// Provider opens the configured provider (a missing setting is
	// refused there, before any request).
	Provider func() (provider.Provider, error)
	// HTTPClient carries every request to a sandbox's servers: abx's one
	// client, with its transport (proxies, CAs, the trace). Whatever its
	// redirect rule, the clients made here follow abx's
	// (httpclient.CheckRedirect).
	HTTPClient func() *http.Client
	// Learned, when set, hears every endpoint of a sandbox the service
	// reads, before it is used: its tokens are secrets from then on, which
	// the door's redaction must know.
	Learned func(*provider.Endpoint)
	// KeepClients is how long a sandbox's clients are kept between
	// operations (clients.go): 0 keeps none (the command line's one run);
	// a server keeps them, so that each call does not read the sandbox
	// first.
	KeepClients time.Duration

	now     func() time.Time // the clock of the cache; nil: time.Now
	mu      sync.Mutex
	clients map[clientKey]kept
}

// Check refuses, with E8004, a capability the provider does not declare:
// the one capability check, which every operation runs before any I/O. A
// door calls it itself only where it must refuse before it reads its own
// input (the command line, before it reads stdin or a local file).
func (s *Service) Check(c provider.Capability) error {
	d, err := s.Descriptor()
	if err != nil {
		return err
	}
	if !d.Supports(c) {
		return abxerr.NewUnsupported(d.Name, string(c))
	}
	return nil
}

// Supports tells whether the provider declares c, for a door that offers
// more when it does (files cp keeps modes with exec.run); it checks
// nothing.
func (s *Service) Supports(c provider.Capability) bool {
	return s.Check(c) == nil
}

// Ready opens the provider, refusing a missing or bad setting: for a door
// that starts serving only once it could serve (the engine).
func (s *Service) Ready() error {
	_, err := s.Provider()
	return err
}

// target checks the capability and the sandbox ID, then opens the
// provider: what every operation on one sandbox starts with.
func (s *Service) target(c provider.Capability, id string) (provider.Provider, error) {
	if err := s.Check(c); err != nil {
		return nil, err
	}
	if err := provider.CheckSandboxID(id); err != nil {
		return nil, err
	}
	return s.Provider()
}

// Keeping returns a service of the same provider whose clients are kept
// for d, in a cache of its own: for a command that calls the same
// sandboxes again and again (metrics --watch).
func (s *Service) Keeping(d time.Duration) *Service {
	return &Service{Descriptor: s.Descriptor, Provider: s.Provider, HTTPClient: s.HTTPClient, Learned: s.Learned,
		KeepClients: d, now: s.now}
}
