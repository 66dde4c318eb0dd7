package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/loopback"
)

// TokenVariable gives `abx mcp serve --listen` its bearer token, out of
// the process list that --token shows.
const TokenVariable = "ABX_MCP_TOKEN"

// minTokenLength keeps a token given by hand from being guessable.
const minTokenLength = 16

// mcpPath is where the Streamable HTTP endpoint answers.
const mcpPath = "/mcp"

// Bounds on the reads of a request (docs/mcp.md, "Over HTTP"): its
// headers must come whole within headerTimeout, and each read of its body
// get a byte within bodyIdleTimeout. A host sends a message at once; only
// a client that means to hold the connection waits longer.
const (
	headerTimeout   = 10 * time.Second
	bodyIdleTimeout = 30 * time.Second
)

// checkListen checks --listen, --allow-remote and the token before
// anything is bound: a remote address needs --allow-remote, and a token
// given must be long enough. It fills opts.Token (generated when none was
// given, to be shown once).
func (opts *ServeOptions) checkListen(getenv func(string) string) error {
	if opts.Listen == "" {
		switch {
		case opts.AllowRemote:
			return abxerr.New(abxerr.Usage, "--allow-remote needs --listen").WithHint("serve over HTTP with --listen 127.0.0.1:PORT")
		case opts.Token != "":
			return abxerr.New(abxerr.Usage, "--token needs --listen").WithHint("stdio needs no token: the host that spawns abx is its only client")
		}
		return nil
	}
	host, port, err := net.SplitHostPort(opts.Listen)
	if err != nil || port == "" {
		return abxerr.New(abxerr.InvalidInput, "invalid --listen %q: give HOST:PORT", opts.Listen).WithHint("e.g. 127.0.0.1:8931, or 127.0.0.1:0 for any free port")
	}
	if !loopbackHost(host) && !opts.AllowRemote {
		return abxerr.New(abxerr.InvalidInput, "--listen %s is not a loopback address: other machines could call the tools", opts.Listen).
			WithHint("listen on 127.0.0.1, or pass --allow-remote (behind TLS you control) to accept it")
	}
	if opts.Token == "" {
		opts.Token = getenv(TokenVariable)
	}
	if opts.Token == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
		opts.Token = base64.RawURLEncoding.EncodeToString(b)
		opts.tokenGenerated = true
		return nil
	}
	if len(opts.Token) < minTokenLength || strings.ContainsAny(opts.Token, " \t\r\n") {
		return abxerr.New(abxerr.InvalidInput, "the bearer token must be at least %d characters, without spaces", minTokenLength).
			WithHint("leave --token and " + TokenVariable + " unset to have one made")
	}
	return nil
}

// loopbackHost says whether host names this machine only. An empty host (":PORT")
// is every interface.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves the MCP server over Streamable HTTP at opts.Listen until
// ctx ends, every request checked for the bearer token.
func serveHTTP(ctx context.Context, opts *ServeOptions, srv *mcp.Server) error {
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot listen on %s: %v", opts.Listen, errors.Unwrap(err)).
			WithHint("pick another port, or 127.0.0.1:0 for any free one")
	}
	// One server, many sessions: each host that connects gets its own.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		// A host that vanished without DELETE frees its session.
		SessionTimeout: 30 * time.Minute,
	})
	idle := opts.bodyIdle
	if idle <= 0 {
		idle = bodyIdleTimeout
	}
	// Every path goes through the same doors, in this order, each
	// answering from the headers: this machine's names and pages only
	// (a page's request, or one by way of DNS rebinding, is refused
	// without a look at anything else), then the token, then the path.
	handler := requireToken(opts.Token, idleBodies(idle, endpointOnly(http.NewCrossOriginProtection().Handler(h))))
	if !opts.AllowRemote {
		handler = loopback.Names(nil).Guard(handler)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: headerTimeout, IdleTimeout: 2 * time.Minute}

	url := "http://" + ln.Addr().String() + mcpPath
	fmt.Fprintf(opts.IO.ErrOut, "Serving MCP on %s\n", url)
	if opts.tokenGenerated {
		fmt.Fprintf(opts.IO.ErrOut, "Bearer token (shown once): %s\n", opts.Token)
	}
	// From here on the token is a secret like the API key: nothing prints it.
	opts.IO.Secrets.Add(opts.Token)

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return abxerr.New(abxerr.Internal, "the MCP HTTP server stopped: %v", err)
	case <-ctx.Done():
	}
	// Let calls under way answer for a moment; streams that stay open
	// (a host's GET) are closed after it.
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return nil
}

// requireToken answers 401 to a request without "Authorization: Bearer
// TOKEN", from its headers: the body is not read and the connection
// closes after the answer, so that a client sending it a byte at a time
// holds nothing. The comparison is of digests in constant time, so
// neither the token's bytes nor its length leak through timing.
func requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="abx mcp"`)
			loopback.Refuse(w, http.StatusUnauthorized, "missing or wrong bearer token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// endpointOnly serves mcpPath, exactly as it is written, and answers 404
// to any other path from its headers, its body unread: a path with dot
// segments or doubled slashes is not cleaned into the endpoint (nor
// redirected to it, as a ServeMux would), it is another path.
func endpointOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mcpPath || r.URL.RawPath != "" {
			loopback.Refuse(w, http.StatusNotFound, "404 page not found: the MCP endpoint is "+mcpPath)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// idleBodies bounds each read of an authenticated request's body by idle.
func idleBodies(idle time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer loopback.IdleBody(w, r, idle)()
		next.ServeHTTP(w, r)
	})
}
