package output

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

func filter(t *testing.T, expr, in string, pretty bool) (string, error) {
	t.Helper()
	q, err := CompileJQ(expr)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	w := q.Filter(context.Background(), &out, pretty)
	if _, err := io.WriteString(w, in); err != nil {
		t.Fatal(err)
	}
	err = w.Close(context.Background())
	return out.String(), err
}

func TestJQ(t *testing.T) {
	cases := []struct {
		expr, in, want string
		pretty         bool
	}{
		{".[].id", `[{"id":"a"},{"id":"b"}]`, "a\nb\n", false},
		{".n + 1", `{"n": 41}`, "42\n", false},
		{".big", `{"big": 9007199254740993}`, "9007199254740993\n", false},
		{"{x: .a}", `{"a":[1,2]}`, `{"x":[1,2]}` + "\n", false},
		{"{x: .a}", `{"a":[1]}`, "{\n  \"x\": [\n    1\n  ]\n}\n", true},
		// JSON Lines: each value on its own
		{`select(.type=="stdout") | .data`, "{\"type\":\"start\"}\n{\"type\":\"stdout\",\"data\":\"hi\"}\n", "hi\n", false},
		{".missing", `{}`, "null\n", false},
		{"{a: .s}", `{"s":"<&>"}`, "{\n  \"a\": \"<&>\"\n}\n", true},
	}
	for _, tc := range cases {
		got, err := filter(t, tc.expr, tc.in, tc.pretty)
		if err != nil || got != tc.want {
			t.Errorf("%s on %s: %q, %v; want %q", tc.expr, tc.in, got, err, tc.want)
		}
	}
}

func TestJQErrors(t *testing.T) {
	if _, err := CompileJQ(".[] | "); err == nil || abxerr.From(err).ExitCode() != abxerr.ExitUsage {
		t.Errorf("bad expression: %v", err)
	}
	for _, in := range []string{`[1]`, `not json`} {
		_, err := filter(t, ".foo", in, false)
		var e *abxerr.Error
		if !errors.As(err, &e) || e.Code != abxerr.FilterFailed {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// A string --jq selects prints raw through a pipe, byte for byte as jq -r
// prints it; on a terminal its controls are escaped as in a table, so that
// a server's metadata cannot drive the terminal. Line breaks and tabs stay:
// the expression's own ("\(.a)\t\(.b)") are as much its text as the data's.
func TestJQStringsOnATerminal(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{false, true} {
		p, out, _ := printerIn(tty, "table")
		q, err := CompileJQ(`.[] | "\(.name)\t\(.state)"`)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.FilterJQ(context.Background(), q, false); err != nil {
			t.Fatal(err)
		}
		_ = p.Print([]map[string]string{{"name": controls, "state": "run\nning"}}, nil, func() error { return nil })
		if err := p.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := controls + "\trun\nning\n"
		if tty {
			want = `a\x1b[2J\a\x7f\u0080\u009b31m\u009f\u202eb` + "\trun\nning\n"
		}
		if out.String() != want {
			t.Errorf("terminal %v: %q, want %q", tty, out.String(), want)
		}
	}
}
