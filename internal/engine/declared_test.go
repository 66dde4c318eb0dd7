package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// A route built from a declaration reads the path and E2B's names of the
// body's fields into the operation's values, and answers its result with
// the declared status, or its error with the status abx gives it.
func TestDeclaredRouteReadsE2BNamesAndAnswersTheResult(t *testing.T) {
	t.Parallel()
	var got sandboxes.Values
	op := &sandboxes.Operation{Name: "test.op",
		Inputs: []sandboxes.Input{{Name: "id", Kind: sandboxes.Text}, {Name: "template", Kind: sandboxes.Text},
			{Name: "timeout", Kind: sandboxes.Seconds}, {Name: "env", Kind: sandboxes.Pairs}, {Name: "n", Kind: sandboxes.Number},
			{Name: "on", Kind: sandboxes.Flag}},
		Door: &sandboxes.Door{Route: "POST /things/{id}", Status: http.StatusCreated},
		Call: func(_ context.Context, _ *sandboxes.Service, in sandboxes.Values) (any, error) {
			got = in
			if in.Text("id") == "gone" {
				return nil, abxerr.New(abxerr.NotFound, "sandbox gone not found")
			}
			return map[string]string{"thing": in.Text("id")}, nil
		}}
	e := &Engine{}
	mux := http.NewServeMux()
	mux.HandleFunc(op.Door.Route, e.declared(op))
	post := func(path, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		return w
	}
	w := post("/things/sb-1", `{"templateID":"base","timeout":60,"envVars":{"A":"1"},"n":3,"on":true}`)
	if w.Code != http.StatusCreated || strings.TrimSpace(w.Body.String()) != `{"thing":"sb-1"}` {
		t.Errorf("answer %d %s", w.Code, w.Body)
	}
	if got.Text("id") != "sb-1" || got.Text("template") != "base" || got.Seconds("timeout") != time.Minute ||
		got.Pairs("env")["A"] != "1" || got.Number("n") != 3 || !got.Flag("on") {
		t.Errorf("values %v", got)
	}
	if w := post("/things/sb-1", `{"timeout":"soon"}`); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "timeout has the wrong type") {
		t.Errorf("a field of the wrong type: %d %s", w.Code, w.Body)
	}
	if w := post("/things/sb-1", `{"n":1.5}`); w.Code != http.StatusBadRequest {
		t.Errorf("a fraction for a number: %d %s", w.Code, w.Body)
	}
	w = post("/things/gone", `{}`)
	var env struct{ Code int }
	if json.Unmarshal(w.Body.Bytes(), &env) != nil || w.Code != http.StatusNotFound || env.Code != http.StatusNotFound {
		t.Errorf("an error of the operation: %d %s", w.Code, w.Body)
	}
}
