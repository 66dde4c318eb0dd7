// Package loopback keeps the servers abx runs on this machine (the engine,
// the emulator's gateway, the MCP server's HTTP listener, port-forward)
// for this machine's clients: a request whose Host is not a name of this
// machine came by way of DNS rebinding, and one whose Origin is a web page
// elsewhere came from a browser on a page's behalf. Both are refused with
// 403 before anything is read or sent (docs/security.md).
package loopback

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Names are the host names a server answers to besides this machine's own
// (localhost, *.localhost, 127.0.0.0/8, ::1): the domains it hands its
// clients (the emulator's configured domain, and its subdomains).
type Names []string

// Host reports whether hostport (a request's Host: a name or an IP,
// with or without a port) names this machine or one of names: a loopback
// IP, localhost or a name below it (RFC 6761), or a name of names or
// below it.
func (names Names) Host(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, n := range names {
		n = strings.TrimSuffix(strings.ToLower(n), ".")
		if h, _, err := net.SplitHostPort(n); err == nil {
			n = h
		}
		if n != "" && (host == n || strings.HasSuffix(host, "."+n)) {
			return true
		}
	}
	return false
}

// Origin reports whether a request's Origin may be served: none (no
// browser sent it: an SDK, curl, a CLI), or a page of this machine or of
// names. "null" (a sandboxed frame, a file) is refused.
func (names Names) Origin(origin string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return names.Host(u.Host)
}

// Guard answers 403 to a request whose Host or Origin is not this
// machine's (or of names), and hands the others to next. The answer
// closes the connection and reads none of the request's body: a slow
// body cannot hold it.
func (names Names) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !names.Host(r.Host):
			Refuse(w, http.StatusForbidden, "abx serves this machine's clients only: Host "+quote(r.Host)+" is not a name of this machine")
		case !names.Origin(r.Header.Get("Origin")):
			Refuse(w, http.StatusForbidden, "abx serves this machine's clients only: a page of "+quote(r.Header.Get("Origin"))+" may not call it")
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// Refuse answers status with a line of text and closes the connection
// after it, without reading the request's body (RefuseWith).
func Refuse(w http.ResponseWriter, status int, msg string) {
	RefuseWith(w, func() { http.Error(w, msg, status) })
}

// RefuseWith writes an answer (answer writes it, in the server's own
// form) as the connection's last, without reading the request's body: Go's
// server otherwise reads what is left of a small body (up to 256 KiB),
// before it answers or before it lets the connection go, which a client
// sending one byte a second stretches for ever. The answer goes out at
// once, and the read deadline, passed, ends whatever read of the body
// comes after.
func RefuseWith(w http.ResponseWriter, answer func()) {
	w.Header().Set("Connection", "close")
	answer()
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now())
}

// quote keeps a client's words from spilling controls into the answer.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strings.ToValidUTF8(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, `"`+s+`"`), "?")
}
