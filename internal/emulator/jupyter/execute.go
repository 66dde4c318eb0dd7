//go:build unix

package jupyter

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// The stream's lines are written as the real server's json.dumps writes
// them, with a space after ':' and ','; the driver's lines come that way.
var (
	endOfExecution = []byte(`{"type": "end_of_execution"}`)
	keepalive      = []byte(`{"type": "keepalive"}`)
)

var errMissingCode = errors.New("field required: code")

func streamLine(kind, text string) []byte {
	// Jupyter's message dates: UTC, microseconds.
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	return []byte(`{"type": "` + kind + `", "text": ` + quote(text) + `, "timestamp": "` + ts + `"}`)
}

func errorLine(name, value string) []byte {
	return []byte(`{"type": "error", "name": ` + quote(name) + `, "value": ` + quote(value) + `, "traceback": ""}`)
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// stream writes NDJSON lines, each flushed as it is written. Once the
// client is gone writes fail, and are ignored: the execution runs on to
// its end regardless.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s stream) line(b []byte) {
	_, _ = s.w.Write(append(b[:len(b):len(b)], '\n'))
	_ = s.rc.Flush()
}

// execute runs code in a context and streams what happens, as the real
// server does: the count, output as it comes, results, the first error,
// keepalives while it runs, and end_of_execution last. A client that goes
// away does not stop the code, as on the real server: nothing tells the
// kernel, so the cell runs to its end and holds the context until then.
func (s *Server) execute(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code      *string           `json:"code"`
		ContextID string            `json:"context_id"`
		Language  string            `json:"language"`
		EnvVars   map[string]string `json:"env_vars"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		invalid(w, err)
		return
	}
	if req.Code == nil {
		invalid(w, errMissingCode)
		return
	}
	if req.ContextID != "" && req.Language != "" {
		writeText(w, http.StatusBadRequest, "Only one of context_id or language can be provided")
		return
	}
	var cx *codeContext
	switch {
	case req.Language != "":
		language := normalize(req.Language)
		if _, ok := s.argv(language); !ok {
			writeText(w, http.StatusInternalServerError, noKernel(language))
			return
		}
		cx = s.defaultContext(language)
	case req.ContextID != "":
		if cx = s.lookup(req.ContextID); cx == nil {
			writeText(w, http.StatusNotFound, "Context "+req.ContextID+" not found")
			return
		}
	default:
		cx = s.defaultContext("python")
	}
	if _, err := s.kernel(cx); err != nil {
		kernelError(w, cx.id, err)
		return
	}

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	out := stream{w: w, rc: http.NewResponseController(w)}
	_ = out.rc.Flush()
	tick := time.NewTicker(s.opts.Keepalive)
	defer tick.Stop()
	gone := r.Context().Done()

	// One execution at a time in a context; the next waits its turn.
	for waiting := true; waiting; {
		select {
		case cx.turn <- struct{}{}:
			waiting = false
		case <-tick.C:
			out.line(keepalive)
		case <-gone:
			return
		}
	}
	defer func() { <-cx.turn }()

	// The kernel may have been restarted or deleted while we waited.
	k, err := s.kernel(cx)
	var run *run
	if err == nil {
		run, err = k.begin(*req.Code, req.EnvVars)
	}
	if err != nil {
		out.line(connectionClosed())
		out.line(endOfExecution)
		return
	}
	defer close(run.gone)
	for {
		select {
		case ev := <-run.events:
			out.line(ev.line)
			if ev.last {
				return
			}
		case <-tick.C:
			out.line(keepalive)
		case <-gone:
			gone = nil // keep reading: the turn is the cell's until it ends
		}
	}
}
