package abxerr

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An error value may be shared: a package's variable, one error handed to
// two doors, one kept for later. A hint or a step one caller gives it is
// that caller's alone: the value the others hold keeps its own.
func TestWithHintLeavesTheSharedErrorAlone(t *testing.T) {
	shared := New(NotFound, "no sandbox %s", "sbx1").WithHint("the first hint")
	mine := shared.WithHint("run %s", "abx list")
	if shared.Hint != "the first hint" {
		t.Errorf("the shared error's hint became %q", shared.Hint)
	}
	if mine.Hint != "run abx list" || mine.Code != NotFound || mine.Message != "no sandbox sbx1" {
		t.Errorf("the hinted copy is %+v", mine)
	}
	if mine == shared {
		t.Error("WithHint returned the shared error itself")
	}
}

func TestSuggestLeavesTheSharedErrorAlone(t *testing.T) {
	shared := New(Paused, "sandbox sbx1 is paused")
	mine := shared.Suggest(StepResume, "sbx1")
	if shared.Next != "" || shared.Subject != "" {
		t.Errorf("the shared error now suggests %q about %q", shared.Next, shared.Subject)
	}
	if mine.Next != StepResume || mine.Subject != "sbx1" || mine.Code != Paused {
		t.Errorf("the suggesting copy is %+v", mine)
	}
	if mine == shared {
		t.Error("Suggest returned the shared error itself")
	}
}

// The copy is the same error but for its hint and step: errors.Is and
// errors.As still reach what it wraps, and its status and exit stay.
func TestTheCopyKeepsTheRest(t *testing.T) {
	cause := errors.New("refused")
	shared := &Error{Code: Rejected, Message: "no", RequestID: "req-1", Status: 409,
		RetryAfter: 3 * time.Second, Cause: cause, Exit: 7}
	for _, c := range []*Error{shared.WithHint("wait"), shared.Suggest(StepConnect, "sbx1")} {
		if !errors.Is(c, cause) || c.RequestID != "req-1" || c.Status != 409 ||
			c.RetryAfter != 3*time.Second || c.ExitCode() != 7 || c.Message != "no" {
			t.Errorf("the copy lost a field: %+v", c)
		}
	}
}

// A caller that calls WithHint or Suggest as a statement, or gives the
// result to _, expects the error it holds to change; it no longer does, so
// no code in the module drops the result.
func TestNoHintOrStepIsDropped(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	dropped := func(x ast.Expr) {
		call, ok := x.(*ast.CallExpr)
		if !ok {
			return
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "WithHint" || sel.Sel.Name == "Suggest") {
			t.Errorf("%s: the result of %s is dropped: it returns a changed copy and leaves the error as it was",
				fset.Position(call.Pos()), sel.Sel.Name)
		}
	}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "gen"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go"):
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.ExprStmt:
				dropped(s.X)
			case *ast.AssignStmt:
				for i, lhs := range s.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && id.Name == "_" && len(s.Rhs) == len(s.Lhs) {
						dropped(s.Rhs[i])
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
