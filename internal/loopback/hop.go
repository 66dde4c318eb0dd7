package loopback

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
)

// HopHeader carries, on every request a server of abx's forwards, a mark
// of that server: a request that comes back to a server with its own mark
// went round in a loop (a sandbox port that is the server's own listener,
// or another server of abx's that forwards back), and is refused rather
// than forwarded again until files and memory run out.
const HopHeader = "Abx-Forwarded-By"

// Hop is one server's mark. The zero value marks nothing; use NewHop.
type Hop string

// NewHop makes a mark no other server has.
func NewHop() Hop {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return Hop(hex.EncodeToString(b[:]))
}

// Mark adds the server's mark to a request it forwards, keeping the marks
// of servers before it.
func (h Hop) Mark(header http.Header) {
	if h != "" {
		header.Add(HopHeader, string(h))
	}
}

// Seen reports whether a request already went through this server.
func (h Hop) Seen(header http.Header) bool {
	if h == "" {
		return false
	}
	for _, v := range header.Values(HopHeader) {
		if slices.Contains(strings.Split(v, ","), string(h)) || slices.Contains(strings.Fields(v), string(h)) {
			return true
		}
	}
	return false
}

// Limit serves at most n requests at once; the others are answered 503
// at once (with Retry-After), so that no flood of requests, looped or not,
// takes the server's files and memory.
type Limit chan struct{}

// NewLimit is a Limit of n requests.
func NewLimit(n int) Limit { return make(Limit, n) }

// Serve runs serve, which answers w, when a slot is free, and answers 503
// otherwise.
func (l Limit) Serve(w http.ResponseWriter, serve func()) {
	select {
	case l <- struct{}{}:
		defer func() { <-l }()
		serve()
	default:
		w.Header().Set("Retry-After", "1")
		Refuse(w, http.StatusServiceUnavailable, "abx: too many requests at once; try again")
	}
}

// Handler serves next within the limit.
func (l Limit) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.Serve(w, func() { next.ServeHTTP(w, r) })
	})
}
