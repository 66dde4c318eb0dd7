// Package reqlog is the request log the fake servers inside a sandbox keep
// (envd, the code interpreter) when a test asks them to, so that it can
// assert on what abx sent: routes, headers, and the keys it must never
// send. A running emulator keeps none: it holds nothing per request past
// its answer, whatever a client sends it.
package reqlog

import (
	"net/http"
	"sync"
)

// Request is one request as a fake received it.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
}

// Log is safe for concurrent use; its zero value keeps nothing.
type Log struct {
	// Keep makes the log keep each request; a test sets it to read them.
	Keep bool

	mu   sync.Mutex
	list []Request
}

// Record adds r to the log, if it keeps requests.
func (l *Log) Record(r *http.Request) {
	if !l.Keep {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()})
}

// Requests returns a copy of the log. Asked of a log that keeps nothing,
// it panics: a test that reads it would otherwise see no request, and
// pass for the wrong reason.
func (l *Log) Requests() []Request {
	if !l.Keep {
		panic("reqlog: the requests of a server that keeps none; set its KeepRequests")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Request(nil), l.list...)
}
