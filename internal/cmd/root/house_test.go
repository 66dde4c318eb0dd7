package root

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// eachSource parses every non-test Go file under dir (generated code
// left out) and hands its nodes to visit.
func eachSource(t *testing.T, dir string, visit func(fset *token.FileSet, path string, n ast.Node)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "gen" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if n != nil {
				visit(fset, path, n)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The printer decides every format (docs/architecture.md): no command
// names a format or asks the printer which one it prints.
func TestNoFormatSwitchOutsideOutput(t *testing.T) {
	t.Parallel()
	formats := map[string]bool{"Table": true, "Wide": true, "JSON": true, "Name": true}
	asks := map[string]bool{"JSON": true, "Human": true, "Wide": true, "Format": true}
	for _, dir := range []string{"..", "../../cmdutil"} {
		eachSource(t, dir, func(fset *token.FileSet, _ string, n ast.Node) {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "output" && formats[x.Sel.Name] {
					t.Errorf("%s: output.%s: the printer decides the format", fset.Position(x.Pos()), x.Sel.Name)
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && asks[sel.Sel.Name] && len(x.Args) == 0 {
					t.Errorf("%s: %s(): a command does not ask the format", fset.Position(x.Pos()), sel.Sel.Name)
				}
			}
		})
	}
}

// Exit statuses are decided in abxerr alone: nowhere else is a status
// made from a number (abxerr.Status(1), os.Exit(3), 128+n). A sandbox's
// init (boxinit) is the one exception: it links nothing that abxerr
// links, to stay small, and its statuses are the emulator's to read, held
// equal to abxerr's by its tests.
func TestNoExitStatusOutsideAbxerr(t *testing.T) {
	t.Parallel()
	// Whether a file is exempt is asked once a file, not once a node.
	var file string
	var exempt bool
	eachSource(t, "../..", func(fset *token.FileSet, path string, n ast.Node) {
		if path != file {
			file = path
			abs, _ := filepath.Abs(path)
			where := filepath.ToSlash(abs)
			exempt = strings.Contains(where, "/internal/abxerr/") || strings.Contains(where, "/cmd/gendocs/") ||
				strings.Contains(where, "/internal/emulator/jail/boxinit/")
		}
		if exempt {
			return
		}
		number := func(e ast.Expr) bool { lit, ok := e.(*ast.BasicLit); return ok && lit.Kind == token.INT }
		switch x := n.(type) {
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok || len(x.Args) != 1 || !number(x.Args[0]) {
				return
			}
			if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "abxerr" && sel.Sel.Name == "Status" || id.Name == "os" && sel.Sel.Name == "Exit") {
				t.Errorf("%s: %s.%s of a number: decide the status in abxerr", fset.Position(x.Pos()), id.Name, sel.Sel.Name)
			}
		case *ast.BinaryExpr:
			for _, e := range []ast.Expr{x.X, x.Y} {
				if lit, ok := e.(*ast.BasicLit); ok && x.Op == token.ADD && lit.Value == strconv.Itoa(128) {
					t.Errorf("%s: 128+n: use abxerr.SignalStatus", fset.Position(x.Pos()))
				}
			}
		}
	})
}
