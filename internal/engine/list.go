package engine

import (
	"cmp"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// E2B's GET /v2/sandboxes filters by metadata, state, start time
// (startedAfter) and template (an ID or an alias), orders by start time
// (order: desc, newest first, by default) across the whole result, and
// pages it (limit, nextToken). sandbox-manager filters by metadata and
// state only, and lists oldest first (docs/protocol.md, "List"): the
// engine lists everything that matches those, then filters, orders and
// pages on its side (docs/engine.md, "What is translated").

// list serves both list routes. The v1 route (GET /sandboxes) lists the
// running sandboxes unless told a state, as E2B's does.
func (e *Engine) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := provider.ListOptions{Metadata: map[string]string{}}
	for _, raw := range q["metadata"] {
		// The SDKs send metadata=k1%3Dv1%26k2%3Dv2: a query of its own.
		pairs, err := url.ParseQuery(raw)
		if err != nil {
			e.writeError(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "invalid metadata filter %q", raw))
			return
		}
		for k, vs := range pairs {
			opts.Metadata[k] = vs[len(vs)-1]
		}
	}
	for _, s := range q["state"] {
		opts.States = append(opts.States, strings.Split(s, ",")...)
	}
	if r.URL.Path == "/sandboxes" && len(opts.States) == 0 {
		opts.States = []string{"running"}
	}
	page, err := readPage(q)
	if err != nil {
		e.writeError(w, http.StatusBadRequest, err)
		return
	}
	all, err := e.svc.List(r.Context(), opts)
	if err != nil {
		e.fail(w, err)
		return
	}
	shown, more := page.items(all)
	out := make([]e2bapi.Sandbox, 0, len(shown))
	for i := range shown {
		d := e.sandbox(&shown[i])
		d.EnvdAccessToken, d.TrafficAccessToken = "", "" // not part of a listed sandbox
		out = append(out, d)
	}
	if more {
		w.Header().Set("X-Next-Token", nextToken(shown[len(shown)-1]))
	}
	writeJSON(w, http.StatusOK, out)
}

// page is what a list request asks beyond the provider's filters.
type page struct {
	desc     bool
	after    time.Time // started at or after; zero: any time
	template string
	limit    int     // 0: all
	from     *cursor // the last sandbox of the previous page
}

// cursor is where a page ends: its last sandbox's place in the order. A
// sandbox created meanwhile neither repeats nor shifts a later page's
// items, as an offset would.
type cursor struct {
	started time.Time
	id      string
}

func readPage(q url.Values) (page, error) {
	var p page
	switch o := q.Get("order"); o {
	case "", "desc":
		p.desc = true
	case "asc":
	default:
		return p, abxerr.New(abxerr.InvalidInput, "invalid order %q: asc or desc", o)
	}
	if v := q.Get("startedAfter"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return p, abxerr.New(abxerr.InvalidInput, "invalid startedAfter %q: an RFC 3339 time", v)
		}
		p.after = t
	}
	p.template = q.Get("template")
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return p, abxerr.New(abxerr.InvalidInput, "invalid limit %q", l)
		}
		p.limit = n
	}
	if t := q.Get("nextToken"); t != "" {
		c, err := readCursor(t)
		if err != nil {
			return p, err
		}
		p.from = c
	}
	return p, nil
}

// compare orders sandboxes by start time, as asked, and by ID within one
// start time, so that the order is total and a cursor names one place.
func (p page) compare(aStarted time.Time, aID string, bStarted time.Time, bID string) int {
	c := aStarted.Compare(bStarted)
	if p.desc {
		c = -c
	}
	return cmp.Or(c, cmp.Compare(aID, bID))
}

// matching are the sandboxes the filters keep, in the order.
func (p page) matching(all []provider.Sandbox) []provider.Sandbox {
	var out []provider.Sandbox
	for _, s := range all {
		if !p.after.IsZero() && s.StartedAt.Before(p.after) {
			continue
		}
		if p.template != "" && s.TemplateID != p.template && s.Alias != p.template {
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b provider.Sandbox) int {
		return p.compare(a.StartedAt, a.SandboxID, b.StartedAt, b.SandboxID)
	})
	return out
}

// items is the page: the matching sandboxes after the cursor, limit of
// them; more when any match after them (a page that ends the list has no
// next token, as E2B's has none).
func (p page) items(all []provider.Sandbox) (shown []provider.Sandbox, more bool) {
	out := p.matching(all)
	if p.from != nil {
		i, _ := slices.BinarySearchFunc(out, *p.from, func(s provider.Sandbox, c cursor) int {
			if p.compare(s.StartedAt, s.SandboxID, c.started, c.id) <= 0 {
				return -1
			}
			return 1
		})
		out = out[i:]
	}
	if p.limit > 0 && len(out) > p.limit {
		return out[:p.limit], true
	}
	return out, false
}

// nextToken is the cursor after last, as the page's next token.
func nextToken(last provider.Sandbox) string {
	return base64.RawURLEncoding.EncodeToString([]byte(last.StartedAt.UTC().Format(time.RFC3339Nano) + " " + last.SandboxID))
}

func readCursor(token string) (*cursor, error) {
	bad := abxerr.New(abxerr.InvalidInput, "invalid nextToken")
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return nil, bad
	}
	when, id, ok := strings.Cut(string(b), " ")
	t, err := time.Parse(time.RFC3339Nano, when)
	if !ok || err != nil || id == "" {
		return nil, bad
	}
	return &cursor{started: t, id: id}, nil
}
