package sandboxes

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// interpreter is a code interpreter's contexts API that knows the context
// c1, and the requests it heard.
type interpreter struct {
	mu    sync.Mutex
	heard []string
}

func (in *interpreter) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(body)
		in.mu.Lock()
		in.heard = append(in.heard, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+string(body)))
		in.mu.Unlock()
		switch {
		case r.URL.Path == "/contexts" && r.Method == "GET":
			_, _ = w.Write([]byte(`[{"id":"c1","language":"python","cwd":"/home/user"}]`))
		case r.URL.Path == "/contexts" && r.Method == "POST":
			_, _ = w.Write([]byte(`{"id":"c2","language":"javascript","cwd":"/tmp"}`))
		case strings.HasPrefix(r.URL.Path, "/contexts/c1"):
		default:
			http.Error(w, "Context not found", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (in *interpreter) requests() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.heard...)
}

// The contexts: listed, made for a language or its alias, restarted and
// deleted by an ID checked before it is put into the URL; one the
// interpreter does not know points at the sandbox's contexts.
func TestContexts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	in := &interpreter{}
	s := service(&fake{url: in.start(t)}, 0, provider.CodeInterpret)
	if list, err := s.Contexts(ctx, "sb"); err != nil || len(list) != 1 || list[0].ID != "c1" {
		t.Errorf("contexts: %+v, %v", list, err)
	}
	if x, err := s.CreateContext(ctx, "sb", "JS", "/tmp"); err != nil || x.ID != "c2" {
		t.Errorf("create: %+v, %v", x, err)
	}
	if err := s.RestartContext(ctx, "sb", "c1"); err != nil {
		t.Errorf("restart: %v", err)
	}
	if err := s.DeleteContext(ctx, "sb", "c1"); err != nil {
		t.Errorf("delete: %v", err)
	}
	want := []string{"GET /contexts", `POST /contexts {"language":"javascript","cwd":"/tmp"}`, "POST /contexts/c1/restart", "DELETE /contexts/c1"}
	if got := in.requests(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the interpreter heard %q, want %q", got, want)
	}

	err := s.DeleteContext(ctx, "sb", "c9")
	if e := abxerr.From(err); e.Code != abxerr.NotFound || e.Next != abxerr.StepContexts || e.Subject != "sb" {
		t.Errorf("a context that is not there: %v (next %q about %q)", err, e.Next, e.Subject)
	}
	before := len(in.requests())
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"restart ..", s.RestartContext(ctx, "sb", ".."), `invalid context ".."`},
		{"delete a/b", s.DeleteContext(ctx, "sb", "../../sandboxes"), `invalid context "../../sandboxes"`},
		{"restart none", s.RestartContext(ctx, "sb", ""), "the context is required"},
		{"delete blank", s.DeleteContext(ctx, "sb", " "), "the context is required"},
		{"create cobol", func() error { _, err := s.CreateContext(ctx, "sb", "cobol", ""); return err }(), "invalid language cobol"},
	} {
		e := abxerr.From(tc.err)
		if e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %v, want E1002 saying %q", tc.name, tc.err, tc.want)
		}
		if strings.Contains(tc.name, "context") || strings.HasPrefix(tc.name, "restart") || strings.HasPrefix(tc.name, "delete") {
			if e.Next != abxerr.StepContexts || e.Subject != "sb" {
				t.Errorf("%s: next %q about %q, want the sandbox's contexts", tc.name, e.Next, e.Subject)
			}
		}
	}
	if got := in.requests(); len(got) != before {
		t.Errorf("the interpreter heard %q", got[before:])
	}
}
