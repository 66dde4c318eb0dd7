package sandboxes

import (
	"time"

	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
)

// The clients of sandboxes' servers kept between operations, under one
// rule: a client is kept KeepClients at most, and dropped at once when its
// sandbox is killed, paused or resumed through the service (Kill, Pause,
// Resume, a Connect that resumed or failed), or when a door says that a
// call through it failed in a way a fresh read may explain (Forget). The
// endpoint does not change in a running sandbox's life; the time bound is
// for a sandbox killed or paused behind the service's back, whose calls
// then get the gateway's answer rather than the read's for at most that
// long.

// clientKey names what is kept of a sandbox: the endpoint of a port,
// envd's client per user, the interpreter's client.
type clientKey struct {
	id   string
	kind clientKind
	user string
	port int
}

type clientKind int

const (
	endpointKind clientKind = iota
	envdKind
	interpreterKind
)

type kept struct {
	ep     *provider.Endpoint
	envd   *envd.Client
	interp *codeinterp.Client
	until  time.Time
}

// kept returns a client kept and still fresh; stale ones are dropped.
func (s *Service) kept(key clientKey) (kept, bool) {
	if s.KeepClients <= 0 {
		return kept{}, false
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, c := range s.clients { // a server lives long: no sandbox stays for ever
		if !now.Before(c.until) {
			delete(s.clients, k)
		}
	}
	c, ok := s.clients[key]
	return c, ok
}

func (s *Service) keep(key clientKey, c kept) {
	if s.KeepClients <= 0 {
		return
	}
	c.until = s.clock().Add(s.KeepClients)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients == nil {
		s.clients = map[clientKey]kept{}
	}
	s.clients[key] = c
}

// Forget drops every client kept for a sandbox: a door calls it when a
// call through one failed in a way a fresh read of the sandbox may explain
// or mend (its address or tokens changed, it was paused or killed behind
// the service's back).
func (s *Service) Forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.clients {
		if k.id == id {
			delete(s.clients, k)
		}
	}
}

func (s *Service) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}
