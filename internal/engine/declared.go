package engine

import (
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// declared serves the route of E2B's API of an operation the catalogue
// declares whole (sandboxes.Door.Route): its path values and the fields of
// its JSON body are the operation's inputs, named as E2B names them
// (spelling); its answer is the operation's result as JSON, with the
// declared status.
func (e *Engine) declared(op *sandboxes.Operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := map[string]any{}
		if !e.readBody(w, r, &body) {
			return
		}
		in, err := values(op, r, body)
		if err != nil {
			e.writeError(w, http.StatusBadRequest, err)
			return
		}
		res, err := op.Call(r.Context(), e.svc, in)
		if err != nil {
			e.fail(w, err)
			return
		}
		if res == nil {
			w.WriteHeader(op.Door.Status)
			return
		}
		writeJSON(w, op.Door.Status, res)
	}
}

// values reads an operation's inputs from a request: a path value of the
// input's name, or a field of the body as E2B spells it.
func values(op *sandboxes.Operation, r *http.Request, body map[string]any) (sandboxes.Values, error) {
	v := sandboxes.Values{}
	for i := range op.Inputs {
		in := &op.Inputs[i]
		if p := r.PathValue(in.Name); p != "" {
			v[in.Name] = p
			continue
		}
		field := FieldName(in)
		a, given := body[field]
		if !given || a == nil {
			continue
		}
		bad := abxerr.New(abxerr.InvalidInput, "invalid request body: %s has the wrong type", field)
		switch in.Kind {
		case sandboxes.Number, sandboxes.Seconds:
			n, ok := a.(float64)
			if !ok || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
				return nil, bad
			}
			if in.Kind == sandboxes.Seconds {
				v[in.Name] = time.Duration(n) * time.Second
			} else {
				v[in.Name] = int64(n)
			}
		case sandboxes.Flag:
			b, ok := a.(bool)
			if !ok {
				return nil, bad
			}
			v[in.Name] = b
		case sandboxes.Pairs:
			m := map[string]string{}
			raw, _ := json.Marshal(a)
			if json.Unmarshal(raw, &m) != nil {
				return nil, bad
			}
			v[in.Name] = m
		default:
			s, ok := a.(string)
			if !ok {
				return nil, bad
			}
			v[in.Name] = s
		}
	}
	return v, nil
}

// FieldName is the field of a route's JSON body an input is, as E2B's API
// names it (also for the generated reference).
func FieldName(in *sandboxes.Input) string {
	if n := spelling.Names[in.Name]; n != "" {
		return n
	}
	return in.Name
}
