package loopback

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestHopSeesItsOwnMarkOnly(t *testing.T) {
	t.Parallel()
	a, b := NewHop(), NewHop()
	h := http.Header{}
	if a.Seen(h) {
		t.Error("a fresh request seen")
	}
	b.Mark(h)
	if a.Seen(h) {
		t.Error("another server's mark taken for a's")
	}
	a.Mark(h)
	if !a.Seen(h) || !b.Seen(h) {
		t.Errorf("marks %q", h.Values(HopHeader))
	}
	// A proxy may join repeated headers into one.
	joined := http.Header{HopHeader: {string(b) + ", " + string(a)}}
	if !a.Seen(joined) {
		t.Errorf("a's mark in %q not seen", joined)
	}
	if Hop("").Seen(http.Header{HopHeader: {""}}) {
		t.Error("the zero hop saw itself")
	}
}

func TestLimitAnswersTheRestAtOnce(t *testing.T) {
	t.Parallel()
	in, release := make(chan struct{}), make(chan struct{})
	limit := NewLimit(2)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		limit.Serve(w, func() {
			in <- struct{}{}
			<-release
			w.WriteHeader(204)
		})
	})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		}()
		<-in
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("the third at once: %d %v", w.Code, w.Header())
	}
	close(release)
	wg.Wait()
	go func() { <-in }()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 204 {
		t.Errorf("after the others: %d", w.Code)
	}
}
