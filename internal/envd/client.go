// Package envd is abx's client of E2B's envd daemon inside a sandbox: the
// process and filesystem services over Connect, and /files for streaming
// file contents. It is built from the endpoint a provider hands over and
// never sees the API key.
package envd

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

// DefaultUserName is the sandbox user abx names when the caller names none
// and envd has no default of its own (before 0.4.0).
const DefaultUserName = "user"

// MaxMessage caps one message from envd. Output comes in chunks of 32 KiB
// and a listing of 100 000 entries fits in about 20 MiB; a larger message
// is refused (E5004) rather than held in memory, decoded, several times
// over.
const MaxMessage = 32 << 20

// Client talks to one sandbox's envd as one Linux user.
type Client struct {
	Version   Version
	User      string // "" when envd picks its default
	base      string
	http      *http.Client
	keepalive time.Duration
	// timeout is the deadline of each unary call (Endpoint.Timeout): the
	// RPCs' interceptor applies it, and Metrics, a plain GET, applies it
	// itself.
	timeout time.Duration

	Process    processconnect.ProcessClient
	Filesystem filesystemconnect.FilesystemClient
}

// Endpoint is what the client needs to reach envd: its base URL, the
// headers of every request (routing, access tokens) and envd's version.
type Endpoint struct {
	URL     string
	Header  http.Header
	Version string
	// Timeout is the deadline of each unary RPC; 0 for none. Streams
	// (process output) and /files transfers have none.
	Timeout time.Duration
	// Keepalive is how often envd is asked for a keepalive event on a
	// quiet process stream; 0 asks for none.
	Keepalive time.Duration
}

// New builds a client. user "" means envd's default user, or "user" on envd
// versions that have none.
func New(hc *http.Client, ep Endpoint, user string) *Client {
	v := ParseVersion(ep.Version)
	if user == "" && !v.AtLeast(DefaultUser) {
		user = DefaultUserName
	}
	h := ep.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	// The API key belongs to the control plane only; envd strips newer
	// fields for connect-python, so abx names itself.
	h.Del("X-API-Key")
	h.Set("User-Agent", "abx")
	if user != "" {
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":")))
	}
	withHeaders := &http.Client{
		Transport:     &headerTransport{next: transportOf(hc), header: h},
		CheckRedirect: hc.CheckRedirect,
		Jar:           hc.Jar,
	}
	base := strings.TrimRight(ep.URL, "/")
	return &Client{
		Version:   v,
		User:      user,
		base:      base,
		http:      withHeaders,
		keepalive: ep.Keepalive,
		timeout:   ep.Timeout,
		// Command output is not compressed: envd would gzip every chunk and
		// abx gunzip it, which halves throughput on a fast link for what
		// little it saves (docs/performance.md, "Compression"). Its events
		// are decoded into one reused buffer (outputCodec).
		Process: processconnect.NewProcessClient(withHeaders, base, connect.WithInterceptors(deadline(ep.Timeout)),
			connect.WithReadMaxBytes(MaxMessage), connect.WithAcceptCompression("gzip", nil, nil),
			connect.WithCodec(outputCodec{})),
		Filesystem: filesystemconnect.NewFilesystemClient(withHeaders, base, connect.WithInterceptors(deadline(ep.Timeout)),
			connect.WithReadMaxBytes(MaxMessage)),
	}
}

// deadline gives each unary RPC its own deadline, as API calls have one,
// but for SendInput: envd answers it once the bytes are in the process's
// pipe or terminal, so it waits as long as the process does not read
// (that wait is what keeps abx from reading more of its stdin), and its
// bound is the caller's, the life of the command it feeds.
func deadline(d time.Duration) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if d <= 0 || req.Spec().Procedure == processconnect.ProcessSendInputProcedure {
				return next(ctx, req)
			}
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next(ctx, req)
		}
	}
}

func transportOf(hc *http.Client) http.RoundTripper {
	if hc.Transport != nil {
		return hc.Transport
	}
	return http.DefaultTransport
}

// headerTransport puts the endpoint's headers on every request, RPC and
// /files alike.
type headerTransport struct {
	next   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return t.next.RoundTrip(r)
}
