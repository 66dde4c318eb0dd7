// Package portforward serves a sandbox's port on a local address: every
// request (HTTP, and WebSocket or other upgrades) goes on to the port by
// the provider's URL rule, with the headers that route it and nothing of
// the local client's credentials turned into ours. It knows no cobra.
package portforward

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/provider"
)

// Forwarder is an http.Handler that forwards to one sandbox port.
type Forwarder struct {
	proxy *httputil.ReverseProxy
	// OnFailure, if set, hears every request the port could not answer:
	// the upstream's error status (502, 404) or a transport error.
	OnFailure func(status int, err error)
	// Hop is the mark of the server this forwarder serves in: every
	// request it forwards bears it, and one that comes back with it went
	// round in a loop (a sandbox port that leads back to this server) and
	// is refused with 508.
	Hop loopback.Hop
	// Redact, when set, takes the secrets out of the answers: every
	// header value, and the error bodies of privileged ports.
	Redact func(string) string
	// Log, when set, gets the forwarding's own lines (a body cut while it
	// was copied, as when the sandbox ends under a stream); nil drops
	// them: the client sees the cut itself. Never Go's standard logger,
	// which would write to the terminal, or a wrapped program's stderr,
	// whatever else writes there.
	Log io.Writer
}

// logTo writes the reverse proxy's lines to the forwarder's Log, if any.
type logTo struct{ fw *Forwarder }

func (l logTo) Write(p []byte) (int, error) {
	if l.fw.Log != nil {
		return l.fw.Log.Write(p)
	}
	return len(p), nil
}

// New forwards to ep through transport (abx's, with its proxy and CA
// settings).
func New(ep *provider.Endpoint, transport http.RoundTripper) (*Forwarder, error) {
	target, err := url.Parse(ep.URL)
	if err != nil {
		return nil, err
	}
	fw := &Forwarder{}
	fw.proxy = &httputil.ReverseProxy{
		ErrorLog: log.New(logTo{fw}, "abx: forwarding: ", 0),
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
			for k, vs := range ep.Header {
				r.Out.Header[k] = append([]string(nil), vs...)
			}
			fw.Hop.Mark(r.Out.Header)
		},
		// The endpoint's renewing credential (a traffic token) is set as
		// each request leaves, valid then.
		Transport: ep.Transport(transport),
		// Streams (server-sent events, NDJSON, downloads) go through as
		// they come, not when a buffer fills.
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			// The gateway answers 502 for a paused sandbox or a port
			// nothing listens on, 404 for a sandbox that is gone; the
			// listener tells those from the application's own answers.
			if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusNotFound {
				fw.failed(resp.StatusCode, nil)
			}
			return fw.redactAnswer(resp, ep.Privileged)
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			if errors.Is(err, http.ErrAbortHandler) {
				return
			}
			fw.failed(http.StatusBadGateway, err)
			// abx's own refusal to send (a traffic token that expired and
			// could not be renewed) says why; a failure of the way there
			// is the port's silence.
			var e *abxerr.Error
			if errors.As(err, &e) {
				http.Error(w, "abx port-forward: "+e.Message, http.StatusBadGateway)
				return
			}
			http.Error(w, "abx port-forward: the sandbox's port did not answer", http.StatusBadGateway)
		},
	}
	return fw, nil
}

// ServeHTTP forwards one request, its body and the answer flowing at
// once (loopback.Duplex).
func (fw *Forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if fw.Hop.Seen(r.Header) {
		loopback.Refuse(w, http.StatusLoopDetected, "abx: this request came back to the server that forwarded it: the sandbox's port leads back here")
		return
	}
	if err := CheckPath(r.URL); err != nil {
		loopback.Refuse(w, http.StatusBadRequest, "abx: "+err.Error())
		return
	}
	loopback.Duplex(fw.proxy).ServeHTTP(w, r)
}

func (fw *Forwarder) failed(status int, err error) {
	if fw.OnFailure != nil {
		fw.OnFailure(status, err)
	}
}
