package sandboxes

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/abx-dev/abx/"

// goList runs `go list args...` in the module and decodes its packages.
func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,GoFiles,Export,Deps,Standard"}, args...)...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	for d := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := d.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

type listed struct {
	ImportPath, Dir, Export string
	GoFiles, Deps           []string
	Standard                bool
}

// The doors below the command line, and the operations, link no
// command-line library: the MCP server and the engine are the command
// line's equals, not parts of it, and the operations know no door. Nor do
// they link the printer (internal/output, lipgloss, tablewriter): each
// answers in its own form (MCP content, E2B's JSON), and the operations'
// results are plain values. What they share with the printer, the
// secrets every door redacts and the words of a count or a size, is in
// leaves that link none of it either.
func TestNoCommandLineBelowTheDoors(t *testing.T) {
	t.Parallel()
	banned := []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/spf13/viper",
		module + "internal/cmdutil", module + "internal/cmd/",
		module + "internal/output", "charm.land/lipgloss", "github.com/charmbracelet/lipgloss", "github.com/olekukonko/tablewriter"}
	for _, p := range goList(t, "./internal/mcpserver", "./internal/engine", "./internal/sandboxes",
		"./internal/secrets", "./internal/human") {
		for _, dep := range p.Deps {
			for _, b := range banned {
				if dep == b || strings.HasPrefix(dep, b+"/") || (strings.HasSuffix(b, "/") && strings.HasPrefix(dep, b)) {
					t.Errorf("%s links %s", p.ImportPath, dep)
				}
			}
		}
	}
}

// A capability is checked in one place, the operations (Service.Check):
// no other package asks a provider's descriptor whether it has one.
func TestCapabilitiesAreCheckedByTheOperationsOnly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("type-checks the module")
	}
	pkgs := goList(t, "-export", "-deps", "./...")
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	allowed := []string{module + "internal/sandboxes", module + "internal/provider"}
	for _, p := range pkgs {
		// Only a package that links the provider's can hold a descriptor.
		if p.Standard || !strings.HasPrefix(p.ImportPath, module) || slices.Contains(allowed, p.ImportPath) ||
			!slices.Contains(p.Deps, module+"internal/provider") {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		for sel, s := range info.Selections {
			if s.Kind() != types.MethodVal || (s.Obj().Name() != "Check" && s.Obj().Name() != "Supports") {
				continue
			}
			recv := types.TypeString(s.Recv(), nil)
			if strings.TrimPrefix(recv, "*") == module+"internal/provider.Descriptor" {
				t.Errorf("%s: a capability checked outside the operations (%s.%s): call sandboxes.Service.Check",
					fset.Position(sel.Pos()), recv, s.Obj().Name())
			}
		}
	}
}
