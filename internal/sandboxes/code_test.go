package sandboxes

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/provider"
)

func TestLanguages(t *testing.T) {
	t.Parallel()
	want := []string{"bash", "java", "javascript", "python", "r", "typescript"}
	if got := Languages(); !reflect.DeepEqual(got, want) {
		t.Errorf("Languages() = %v, want %v", got, want)
	}
	// The catalogue's choice of a language is the interpreter's languages
	// and their aliases, each read as its language.
	for _, op := range []string{"code.run", "code.context.create"} {
		enum := slices.Sorted(slices.Values(Op(op).Input("language").Enum))
		if keys := slices.Sorted(maps.Keys(languages)); !slices.Equal(enum, keys) {
			t.Errorf("%s's languages are %v, the interpreter's %v", op, enum, keys)
		}
	}
}

// The code of a run is read from the door's source only once the rest of
// the run is checked: a run refused reads nothing (stdin, a file), and
// sends nothing.
func TestRunCodeReadsItsSourceLast(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.CodeInterpret)
	read := 0
	source := func() (string, error) { read++; return "1", nil }
	for name, code := range map[string]Code{
		"language":         {Request: codeinterp.Request{Language: "cobol"}},
		"both":             {Request: codeinterp.Request{Language: "python", ContextID: "c1"}},
		"context":          {Request: codeinterp.Request{ContextID: "a/b"}},
		"timeout":          {Timeout: 25 * time.Hour},
		"negative timeout": {Timeout: -time.Second},
		"env":              {Request: codeinterp.Request{EnvVars: map[string]string{"A": "a\nb"}}},
	} {
		code.Source = source
		if err := s.RunCode(ctx, "sb", code, nil); abxerr.From(err).Code != abxerr.InvalidInput {
			t.Errorf("%s: %v, want E1002", name, err)
		}
	}
	if err := s.RunCode(ctx, "..", Code{Source: source}, nil); abxerr.From(err).Code != abxerr.InvalidInput {
		t.Errorf("a bad sandbox ID: %v", err)
	}
	// Read, the code is checked as an argument's is.
	blank := func() (string, error) { read++; return " \n", nil }
	if err := s.RunCode(ctx, "sb", Code{Source: blank}, nil); !strings.Contains(fmt.Sprint(err), "the code is required") {
		t.Errorf("blank code from the source: %v", err)
	}
	failed := func() (string, error) { read++; return "", abxerr.New(abxerr.InvalidInput, "cannot read the code") }
	if err := s.RunCode(ctx, "sb", Code{Source: failed}, nil); !strings.Contains(fmt.Sprint(err), "cannot read the code") {
		t.Errorf("a source that failed: %v", err)
	}
	if read != 2 || p.reads.Load() != 0 {
		t.Errorf("the source was read %d times, the sandbox %d times; want 2 and 0", read, p.reads.Load())
	}
}
