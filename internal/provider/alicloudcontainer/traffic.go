package alicloudcontainer

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/traffictoken"
)

// Traffic tokens (docs/protocol.md, "Traffic tokens that expire"). A
// guarded sandbox's gateway asks a valid token of every request for any
// of its ports. A create (and, on later managers, a connect) answers one;
// a describe only shows, in the metadata, that the sandbox is guarded. So
// this client keeps one source per guarded sandbox it has met, seeded by
// the answer that carried a token, or empty, to be filled by a refresh
// before the first request of a process that never saw one.

// trafficTokens are the sources of the guarded sandboxes a client has met.
type trafficTokens struct {
	mu sync.Mutex
	m  map[string]*trafficEntry
}

type trafficEntry struct {
	src  *traffictoken.Source
	used time.Time
}

// trafficKeep bounds the sources a long-lived client (the engine, the MCP
// server) holds: one no request has used for that long is dropped when a
// new one comes, as its sandbox most likely ended behind the client's
// back. A sandbox met again gets a fresh source, which refreshes.
const trafficKeep = time.Hour

// seen takes what an answer says of a sandbox's traffic token: a token
// replaces the one held; a guarded sandbox without one gets an empty
// source. It returns the sandbox's source, nil for an unguarded sandbox
// that no answer gave a token.
func (c *Client) seen(w *wireSandbox) *traffictoken.Source {
	t := &c.traffic
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	e, ok := t.m[w.SandboxID]
	switch {
	case w.TrafficAccessToken != "":
		tok, err := traffictoken.Parse(w.TrafficAccessToken, w.TrafficAccessTokenExpiration)
		if err != nil {
			// The answer contradicts itself: the JWT's own claims are
			// what the gateway goes by.
			c.warn("sandbox %s: the traffic token's expiration is doubtful (%v); abx goes by the token's own", w.SandboxID, err)
			tok, _ = traffictoken.Parse(w.TrafficAccessToken, "")
		}
		if ok {
			e.src.Replace(tok)
			e.used = now
			return e.src
		}
		e = &trafficEntry{src: c.newSource(w.SandboxID, tok)}
	case ok:
		e.used = now
		return e.src
	case w.Metadata[e2bapi.TrafficAuthKey] == "true":
		e = &trafficEntry{src: c.newSource(w.SandboxID, traffictoken.Token{})}
	default:
		return nil
	}
	if t.m == nil {
		t.m = map[string]*trafficEntry{}
	}
	for id, old := range t.m {
		if now.Sub(old.used) > trafficKeep {
			delete(t.m, id)
		}
	}
	e.used = now
	t.m[w.SandboxID] = e
	return e.src
}

// forget drops a sandbox's source: it was killed.
func (c *Client) forget(id string) {
	c.traffic.mu.Lock()
	defer c.traffic.mu.Unlock()
	delete(c.traffic.m, id)
}

func (c *Client) newSource(id string, tok traffictoken.Token) *traffictoken.Source {
	return traffictoken.New(id, tok, func(ctx context.Context) (traffictoken.Token, error) {
		return c.refreshTrafficToken(ctx, id)
	}, traffictoken.Options{})
}

// renewing is the traffic-token header of an endpoint of a sandbox with a
// source, nil for one without.
func renewing(src *traffictoken.Source) *provider.RenewingHeader {
	if src == nil {
		return nil
	}
	return &provider.RenewingHeader{Name: e2bapi.TrafficTokenHeader, Value: src.Get}
}

// refreshTrafficToken sends POST {own routes}/sandboxes/{id}/traffic-access-token:
// 200 with a new token; 409 for a sandbox that did not opt in, 404 for one
// that is gone, 429 with Retry-After, 503 when the issuer is down. Asking
// twice is harmless, so it is retried as a read is.
func (c *Client) refreshTrafficToken(ctx context.Context, id string) (traffictoken.Token, error) {
	path, err := sandboxPath(id)
	if err != nil {
		return traffictoken.Token{}, err
	}
	path += "/traffic-access-token"
	var ans *e2bapi.TrafficAccessToken
	if _, _, err := c.send(ctx, c.ownRoutes(), true, http.MethodPost, path, nil, nil, nil, &ans, []int{http.StatusOK}); err != nil {
		if statusOf(err) == http.StatusConflict {
			e := *abxerr.From(err)
			e.Hint = "the sandbox did not opt in to traffic tokens, yet its gateway asked for one"
			return traffictoken.Token{}, &e
		}
		return traffictoken.Token{}, err
	}
	if ans == nil {
		return traffictoken.Token{}, abxerr.New(abxerr.BadResponse, "the service answered POST %s with null", path)
	}
	tok, err := traffictoken.Parse(ans.TrafficAccessToken, ans.TrafficAccessTokenExpiration)
	if err != nil {
		return traffictoken.Token{}, abxerr.New(abxerr.BadResponse, "the service's answer to POST %s is not a usable token: %v", path, err)
	}
	return tok, nil
}

// ownRoutes is the prefix of the routes sandbox-manager serves under its
// own name only (the refresh of a traffic token): the private protocol's
// API base is that prefix already; the native one's origin gets it.
func (c *Client) ownRoutes() string {
	return strings.TrimSuffix(c.api, "/kruise/api") + "/kruise/api"
}
