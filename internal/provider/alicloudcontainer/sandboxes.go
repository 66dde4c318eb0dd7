package alicloudcontainer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// One function per operation: what `abx <command>` sends is read here.

// maxPageSize is the largest limit the list route accepts.
const maxPageSize = 100

// maxPages bounds a listing: 100 000 sandboxes is more than any cluster
// holds, and a cursor that never ends must not keep abx asking.
const maxPages = 1000

// pages reads a listing (GET path with q) page after page, each at most
// maxPageSize, following X-Next-Token until the listing ends or has limit
// items (0: no limit). add takes each page and says how many items the
// listing has so far. A cursor served twice would loop for ever, and
// fresh ones for ever are no better: the listing stops there (or after
// maxPages), with a warning that it may be incomplete.
func pages[T any](ctx context.Context, c *Client, path string, q url.Values, limit int, what string, add func([]T) (int, error)) error {
	cursors := map[string]bool{}
	have := 0
	for n := 1; ; n++ {
		size := maxPageSize
		if limit > 0 {
			size = min(size, limit-have)
		}
		q.Set("limit", strconv.Itoa(size))
		var page []T
		r, err := c.call(ctx, http.MethodGet, path, q, nil, &page, http.StatusOK)
		if err != nil {
			return err
		}
		if have, err = add(page); err != nil {
			return err
		}
		if r.nextToken == "" || (limit > 0 && have >= limit) {
			return nil
		}
		if cursors[r.nextToken] {
			c.warn("the service repeated a page cursor after %d pages; the list stops there and may be incomplete", n)
			return nil
		}
		if n >= maxPages {
			c.warn("the service had more pages after %d (%d %s); the list stops there and may be incomplete", n, have, what)
			return nil
		}
		cursors[r.nextToken] = true
		q.Set("nextToken", r.nextToken)
	}
}

// Create sends POST /sandboxes.
func (c *Client) Create(ctx context.Context, req provider.CreateRequest) (*provider.Sandbox, error) {
	body := e2bapi.NewSandbox{
		TemplateID: req.Template,
		Timeout:    seconds(req.Timeout),
		AutoPause:  req.AutoPause,
		Metadata:   req.Metadata,
		EnvVars:    req.Env,
	}
	if req.NoInternet {
		no := false
		body.AllowInternetAccess = &no
	}
	if n := req.Network; n != nil {
		body.Network = &e2bapi.Network{AllowOut: n.AllowOut, DenyOut: n.DenyOut}
	}
	if req.Name != "" || req.GenerateName != "" {
		// A clone's name: metadata the manager takes out of the rest.
		md := make(map[string]string, len(req.Metadata)+1)
		for k, v := range req.Metadata {
			md[k] = v
		}
		if req.Name != "" {
			md[e2bapi.MetadataSandboxName] = req.Name
		} else {
			md[e2bapi.MetadataSandboxGenerateName] = req.GenerateName
		}
		body.Metadata = md
	}
	var w *wireSandbox
	_, unanswered, err := c.callOnce(ctx, http.MethodPost, "/sandboxes", nil, body, &w, http.StatusCreated, http.StatusOK)
	if unanswered {
		e := abxerr.From(err)
		e.Message = "the connection broke after the create request was sent: the sandbox may have been created (" + e.Message + ")"
		e.Hint = "" // what to do is the door's to say, in its own words
		e.Next = abxerr.StepFindCreated
		return nil, e
	}
	if err != nil {
		return nil, missingTemplate(err, req.Template)
	}
	if err := w.check(http.MethodPost, "/sandboxes"); err != nil {
		e := abxerr.From(err).Suggest(abxerr.StepFindCreated, "")
		e.Hint = "" // what to do is the door's to say, in its own words
		return nil, e
	}
	c.seen(w)
	s := w.model()
	return &s, nil
}

// templateNotFound begins sandbox-manager's 400 for a template it does not
// have (docs/protocol.md, errors).
const templateNotFound = "Template or Checkpoint not found"

// missingTemplate makes the service's refusal of a template it does not
// have what it is, "not found" (exit 3), keeping its words: the server
// answers 400, and lists no templates to pick from.
func missingTemplate(err error, template string) error {
	var e *abxerr.Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest || !strings.HasPrefix(e.Message, templateNotFound) {
		return err
	}
	e.Code = abxerr.NotFound
	e.Hint = fmt.Sprintf("%q is not a template of this service; a cluster's templates are the SandboxSets its operator deployed: ask its admin, or run 'kubectl get sandboxsets -A'", template)
	return e
}

// Connect sends POST /sandboxes/{id}/connect: 201 means the sandbox was
// paused and is resumed, 200 that it was running. Servers without the route
// answer a 4xx; then the sandbox is read with GET as it is.
func (c *Client) Connect(ctx context.Context, id string, timeout time.Duration) (*provider.ConnectResult, error) {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	path, err := sandboxPath(id)
	if err != nil {
		return nil, err
	}
	var w *wireSandbox
	r, err := c.call(ctx, http.MethodPost, path+"/connect", nil, e2bapi.Timeout{Timeout: seconds(timeout)}, &w,
		http.StatusOK, http.StatusCreated)
	if err == nil {
		err = w.check(http.MethodPost, path+"/connect")
	}
	if err != nil {
		if !isClientError(err) {
			return nil, err
		}
		s, gerr := c.Get(ctx, id)
		if gerr != nil {
			return nil, gerr
		}
		return &provider.ConnectResult{Sandbox: *s}, nil
	}
	c.seen(w)
	return &provider.ConnectResult{Sandbox: w.model(), Resumed: r.status == http.StatusCreated}, nil
}

// isClientError is a 4xx other than the ones a GET would repeat
// (authentication, authorization).
func isClientError(err error) bool {
	s := statusOf(err)
	return s >= 400 && s < 500 && s != http.StatusUnauthorized && s != http.StatusForbidden
}

// Get sends GET /sandboxes/{id}.
func (c *Client) Get(ctx context.Context, id string) (*provider.Sandbox, error) {
	w, err := c.get(ctx, id)
	if err != nil {
		return nil, err
	}
	s := w.model()
	return &s, nil
}

// get reads the server's view of a sandbox, tokens included.
func (c *Client) get(ctx context.Context, id string) (*wireSandbox, error) {
	path, err := sandboxPath(id)
	if err != nil {
		return nil, err
	}
	var w *wireSandbox
	if _, err := c.call(ctx, http.MethodGet, path, nil, nil, &w, http.StatusOK); err != nil {
		return nil, err
	}
	if err := w.check(http.MethodGet, path); err != nil {
		return nil, err
	}
	return w, nil
}

// List follows x-next-token through GET /v2/sandboxes until the limit. Only
// state, metadata, limit and nextToken are sent: the server reads any other
// key as a metadata filter.
func (c *Client) List(ctx context.Context, opts provider.ListOptions) ([]provider.Sandbox, error) {
	q := url.Values{}
	if len(opts.States) > 0 {
		q.Set("state", strings.Join(opts.States, ","))
	}
	if len(opts.Metadata) > 0 {
		q.Set("metadata", metadataQuery(opts.Metadata))
	}
	out := []provider.Sandbox{}
	ids := map[string]bool{}
	err := pages(ctx, c, "/v2/sandboxes", q, opts.Limit, "sandboxes", func(page []*wireSandbox) (int, error) {
		for _, w := range page {
			if err := w.check(http.MethodGet, "/v2/sandboxes"); err != nil {
				return 0, err
			}
			// A sandbox listed twice (a page served again) is one sandbox:
			// 'kill --all' must not kill it twice.
			if !ids[w.SandboxID] {
				ids[w.SandboxID] = true
				out = append(out, w.model())
			}
		}
		return len(out), nil
	})
	if err != nil {
		if statusOf(err) == http.StatusNotFound && !isNotFoundSandbox(err) {
			return c.listV1(ctx, opts)
		}
		return nil, err
	}
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

// listV1 serves list on E2B-compatible servers without /v2/sandboxes: the
// old route lists running sandboxes only.
func (c *Client) listV1(ctx context.Context, opts provider.ListOptions) ([]provider.Sandbox, error) {
	q := url.Values{}
	if len(opts.Metadata) > 0 {
		q.Set("metadata", metadataQuery(opts.Metadata))
	}
	var page []*wireSandbox
	if _, err := c.call(ctx, http.MethodGet, "/sandboxes", q, nil, &page, http.StatusOK); err != nil {
		return nil, err
	}
	out := []provider.Sandbox{}
	for _, w := range page {
		if err := w.check(http.MethodGet, "/sandboxes"); err != nil {
			return nil, err
		}
		s := w.model()
		if s.State == "" {
			s.State = "running"
		}
		if matchesState(s.State, opts.States) {
			out = append(out, s)
		}
	}
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

func matchesState(state string, want []string) bool {
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if w == state {
			return true
		}
	}
	return false
}

// isNotFoundSandbox tells a JSON 404 (which the server sends for sandboxes)
// from a plain-text one (a route it does not have).
func isNotFoundSandbox(err error) bool {
	e := abxerr.From(err)
	return e.Code == abxerr.NotFound
}

// Kill sends DELETE /sandboxes/{id}; a second delete answers 404.
func (c *Client) Kill(ctx context.Context, id string) error {
	path, err := sandboxPath(id)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil, http.StatusNoContent, http.StatusOK)
	if err == nil || statusOf(err) == http.StatusNotFound {
		c.forget(id)
	}
	return err
}

// SetTimeout sends POST /sandboxes/{id}/timeout; it overwrites the deadline.
func (c *Client) SetTimeout(ctx context.Context, id string, timeout time.Duration) error {
	path, err := sandboxPath(id)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodPost, path+"/timeout", nil, e2bapi.Timeout{Timeout: seconds(timeout)}, nil,
		http.StatusNoContent, http.StatusOK)
	return err
}

var _ provider.Egress = (*Client)(nil)

// SetNetwork sends PUT /sandboxes/{id}/network, which replaces the
// sandbox's egress rules (empty lists clear them): 204.
func (c *Client) SetNetwork(ctx context.Context, id string, rules provider.Network) error {
	path, err := sandboxPath(id)
	if err != nil {
		return err
	}
	body := e2bapi.Network{AllowOut: rules.AllowOut, DenyOut: rules.DenyOut}
	_, err = c.call(ctx, http.MethodPut, path+"/network", nil, body, nil, http.StatusNoContent, http.StatusOK)
	return err
}

// Pause sends POST /sandboxes/{id}/pause.
func (c *Client) Pause(ctx context.Context, id string) error {
	path, err := sandboxPath(id)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodPost, path+"/pause", nil, nil, nil, http.StatusNoContent, http.StatusOK)
	return err
}

// DefaultTimeout is sent to connect and resume when the user gives none:
// the server refuses both without a timeout. It is the server's default
// lifetime of a new sandbox.
const DefaultTimeout = 300 * time.Second

// Resume sends POST /sandboxes/{id}/resume. sandbox-manager answers 204 with
// no body, E2B 201 with the sandbox: both are success.
func (c *Client) Resume(ctx context.Context, id string, timeout time.Duration) error {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	path, err := sandboxPath(id)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodPost, path+"/resume", nil, e2bapi.Timeout{Timeout: seconds(timeout)}, nil,
		http.StatusNoContent, http.StatusCreated, http.StatusOK)
	return err
}

// PortURL computes the URL of a port from the configuration alone.
func (c *Client) PortURL(id string, port int) (string, error) {
	return c.cfg.PortURL(id, "", port)
}

// sandboxPath is the path of a sandbox's routes. An ID that could not be
// one is refused here, before any request, whichever door passed it on:
// ".." would make the path the API's root, sent with the key.
func sandboxPath(id string) (string, error) {
	if err := provider.CheckSandboxID(id); err != nil {
		return "", err.Suggest(abxerr.StepList, "")
	}
	return "/sandboxes/" + url.PathEscape(id), nil
}

// metadataQuery encodes filters as the server reads them: one query value
// holding "k1=v1&k2=v2", itself URL-encoded.
func metadataQuery(md map[string]string) string {
	v := url.Values{}
	for k, val := range md {
		v.Set(k, val)
	}
	return v.Encode()
}

func seconds(d time.Duration) int64 { return int64(d / time.Second) }
