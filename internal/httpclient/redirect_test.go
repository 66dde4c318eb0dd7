package httpclient

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// A request that carries the API key is never redirected, not even within
// its origin: under the private protocol the API and every sandbox's ports
// share one origin (/kruise/api and /kruise/{id}/{port}), so a path of
// that origin may be a sandbox's own server, and a path the API moved a
// DELETE to is not the route it was sent for.
func TestTheKeyIsNeverRedirected(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var heard []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.Method+" "+r.URL.Path+" key="+r.Header.Get("X-API-Key"))
		mu.Unlock()
		switch r.URL.Path {
		case "/kruise/api/sandboxes/x":
			http.Redirect(w, r, "/kruise/x/8080/stolen", http.StatusTemporaryRedirect)
		case "/kruise/api/v2/sandboxes":
			http.Redirect(w, r, "/kruise/api/v2/sandboxes/", http.StatusMovedPermanently)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	hc := New(nil)
	for _, tc := range []struct{ method, path string }{
		{http.MethodDelete, "/kruise/api/sandboxes/x"},
		{http.MethodGet, "/kruise/api/sandboxes/x"},
		{http.MethodGet, "/kruise/api/v2/sandboxes"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		req.Header.Set("X-API-Key", "sk-secret")
		err := refused(hc.Do(req))
		if e := abxerr.From(err); err == nil || e.Code != abxerr.BadResponse || !strings.Contains(e.Message, "the API key") ||
			strings.Contains(e.Message, "sk-secret") {
			t.Errorf("%s %s: %v", tc.method, tc.path, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range heard {
		if !strings.HasPrefix(h, "DELETE /kruise/api/") && !strings.HasPrefix(h, "GET /kruise/api/") || strings.HasSuffix(h, "/") {
			t.Errorf("followed: %s", h)
		}
	}
	if len(heard) != 3 {
		t.Errorf("heard %q, want the three requests and nothing else", heard)
	}
}
