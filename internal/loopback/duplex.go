package loopback

import (
	"io"
	"net/http"
)

// Duplex serves requests with h, a reverse proxy, in full duplex: the
// request's body stays h's while the answer goes out. Go's HTTP/1.1
// server otherwise drains and closes a request's body when the answer's
// headers are written; a proxy's transport, which reads the body once more
// after its end, then fails to "write" it and closes the upstream
// connection in the middle of the answer: a stream cut a moment after it
// began, whenever the upstream answers as quickly as it does here.
//
// A body h left unread is read to its end, up to maxUnreadBody, before the
// handler returns: in full duplex the server would otherwise meet the
// body's end while it already waits for the connection's next request,
// and drop the connection ("invalid concurrent Body.Read call").
func Duplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex() // not every writer can (HTTP/2 always is)
		h.ServeHTTP(w, r)
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxUnreadBody))
		}
	})
}

// maxUnreadBody is how much of a body a proxied server did not read is
// drained to keep the client's connection; past it the server closes it.
const maxUnreadBody = 256 << 10
