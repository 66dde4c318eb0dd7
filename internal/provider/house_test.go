package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A test's fake provider embeds Provider and writes only the methods its
// test calls (as docker/cli's fakeClient embeds client.Client), so that a
// method Provider gains costs no fake an edit. This walks every test file
// of the module for a type that writes all of Provider's methods itself
// and embeds no Provider.
func TestFakesEmbedTheProvider(t *testing.T) {
	t.Parallel()
	provider := reflect.TypeFor[Provider]()
	fset := token.NewFileSet()
	// What each test package declares: its struct types, whether each
	// embeds Provider, and the methods each writes.
	type declared struct {
		pos    token.Pos
		embeds bool
		writes map[string]bool
	}
	types := map[string]*declared{} // by directory, package and name
	get := func(key string) *declared {
		if types[key] == nil {
			types[key] = &declared{writes: map[string]bool{}}
		}
		return types[key]
	}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != "../.."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		scope := filepath.Dir(path) + " " + f.Name.Name + "."
		for _, decl := range f.Decls {
			switch x := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range x.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					dt := get(scope + ts.Name.Name)
					dt.pos = ts.Pos()
					for _, field := range st.Fields.List {
						dt.embeds = dt.embeds || len(field.Names) == 0 && isProvider(field.Type)
					}
				}
			case *ast.FuncDecl:
				if x.Recv != nil && len(x.Recv.List) == 1 {
					if name := receiver(x.Recv.List[0].Type); name != "" {
						get(scope + name).writes[x.Name.Name] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key, dt := range types {
		if dt.pos == token.NoPos || dt.embeds {
			continue
		}
		all := true
		for i := range provider.NumMethod() {
			all = all && dt.writes[provider.Method(i).Name]
		}
		if all {
			t.Errorf("%s: %s writes every method of provider.Provider: embed it, and write only what the test calls",
				fset.Position(dt.pos), key[strings.LastIndex(key, ".")+1:])
		}
	}
}

// isProvider reports whether an embedded field's type is Provider.
func isProvider(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "provider" && x.Sel.Name == "Provider"
	case *ast.Ident:
		return x.Name == "Provider"
	}
	return false
}

// receiver is the name of a method's receiver type, T or *T.
func receiver(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
