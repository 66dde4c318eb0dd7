// Package reqlog is the request log the fake servers inside a sandbox keep
// (envd, the code interpreter), so that tests can assert on what abx sent:
// routes, headers, and the keys it must never send.
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

// Log is safe for concurrent use; its zero value is empty and ready.
type Log struct {
	mu   sync.Mutex
	list []Request
}

// Record adds r to the log.
func (l *Log) Record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()})
}

// Requests returns a copy of the log.
func (l *Log) Requests() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Request(nil), l.list...)
}
