package sandboxes

import (
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// checked is a package of the module, parsed and type-checked.
type checked struct {
	path  string
	files []*ast.File
	info  *types.Info
	pkg   *types.Package
	// decls are its functions and methods by their object.
	decls map[types.Object]*ast.FuncDecl
}

var (
	checkOnce sync.Once
	doorPkgs  []*checked
	fset      = token.NewFileSet()
)

// doorPackages type-checks the doors' packages once for the tests below:
// the command line's groups and cmdutil, the MCP server, the engine.
func doorPackages(t *testing.T) []*checked {
	t.Helper()
	if testing.Short() {
		t.Skip("type-checks the doors")
	}
	checkOnce.Do(func() {
		pkgs := goList(t, "-export", "-deps", "./internal/cmd/...", "./internal/mcpserver", "./internal/engine")
		exports := map[string]string{}
		for _, p := range pkgs {
			exports[p.ImportPath] = p.Export
		}
		imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			return os.Open(exports[path])
		})
		for _, p := range pkgs {
			if !isDoor(p.ImportPath) {
				continue
			}
			c := &checked{path: p.ImportPath, decls: map[types.Object]*ast.FuncDecl{}, info: &types.Info{
				Selections: map[*ast.SelectorExpr]*types.Selection{}, Uses: map[*ast.Ident]types.Object{},
				Defs: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{},
			}}
			for _, name := range p.GoFiles {
				f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				c.files = append(c.files, f)
			}
			var err error
			if c.pkg, err = (&types.Config{Importer: imp}).Check(p.ImportPath, fset, c.files, c.info); err != nil {
				t.Fatalf("%s: %v", p.ImportPath, err)
			}
			for _, f := range c.files {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok {
						c.decls[c.info.Defs[fd.Name]] = fd
					}
				}
			}
			doorPkgs = append(doorPkgs, c)
		}
	})
	if len(doorPkgs) == 0 {
		t.Fatal("no door packages type-checked")
	}
	return doorPkgs
}

func isDoor(path string) bool {
	return strings.HasPrefix(path, module+"internal/cmd/") || path == module+"internal/cmdutil" ||
		path == module+"internal/mcpserver" || path == module+"internal/engine"
}

// door is one way in to an operation: a command, a tool, a route.
type door struct {
	where string // the declaration's position
	op    string
	serve types.Object // the function that serves it; nil for none
}

// doors finds every declared door of c: cmdutil.Does in a NewCmd function
// (served by the run function it hands cmdutil.Run), the MCP server's add
// (served by its handler), the engine's route table (served by the
// handler beside the Route).
func (c *checked) doors(t *testing.T) []door {
	var out []door
	// A builder of a group's commands takes the operation as a parameter
	// and hands it to cmdutil.Does: each call of it that names an
	// operation is a door, served by what the calling function reaches.
	builders := map[types.Object]int{} // the function → its parameter's index
	for obj, fd := range c.decls {
		ast.Inspect(fd, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || callee(c.info, call) != module+"internal/cmdutil.Does" {
				return true
			}
			id, ok := call.Args[1].(*ast.Ident)
			if !ok {
				return true
			}
			for i, p := range fd.Type.Params.List {
				for _, name := range p.Names {
					if c.info.Defs[name] == c.info.Uses[id] {
						builders[obj] = paramIndex(fd, i, name)
					}
				}
			}
			return true
		})
	}
	for obj, fd := range c.decls {
		ast.Inspect(fd, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if b := funcOf(c.info, stripIndex(call.Fun)); b != nil {
				if i, ok := builders[b]; ok && i < len(call.Args) {
					if op, ok := constString(c.info, call.Args[i]); ok {
						out = append(out, door{where: fset.Position(call.Pos()).String(), op: op, serve: obj})
					}
				}
			}
			return true
		})
	}
	for obj, fd := range c.decls {
		var run types.Object
		var does []door
		ast.Inspect(fd, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				switch callee(c.info, n) {
				case module + "internal/cmdutil.Does":
					// A door built from a declaration names no operation of
					// its own (TestDeclaredCallsReachTheirFunction).
					if op, ok := constString(c.info, n.Args[1]); ok {
						does = append(does, door{where: fset.Position(n.Pos()).String(), op: op})
					}
				case module + "internal/cmdutil.Run":
					run = funcOf(c.info, n.Args[3])
				case module + "internal/mcpserver.add":
					out = append(out, door{where: fset.Position(n.Pos()).String(), op: stringArg(t, c.info, n.Args[2]),
						serve: funcOf(c.info, n.Args[4])})
				}
			case *ast.CompositeLit:
				// The engine's table: {Route{pattern, op}, handler}.
				if len(n.Elts) == 2 {
					if inner, ok := n.Elts[0].(*ast.CompositeLit); ok && typeName(c.info, inner) == module+"internal/engine.Route" {
						// A declared route names its operation through the
						// declaration (TestDeclaredCallsReachTheirFunction).
						if op, ok := constString(c.info, inner.Elts[1]); ok {
							out = append(out, door{where: fset.Position(n.Pos()).String(), op: op, serve: funcOf(c.info, n.Elts[1])})
						}
					}
				}
			}
			return true
		})
		for _, d := range does {
			// A command whose run is handed to a builder of its group is
			// served by what its NewCmd function reaches.
			d.serve = run
			if run == nil {
				d.serve = obj
			}
			out = append(out, d)
		}
	}
	return append(out, c.routeVars()...)
}

// routeVars finds the engine's routes declared as variables of their own
// (the data plane's: var dataPlaneRoute = Route{pattern, op}): each is a
// door served by every function that admits its operation (reads its
// Operation; a listing of the routes reads the whole).
func (c *checked) routeVars() []door {
	var out []door
	for _, f := range c.files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.CompositeLit)
					if !ok || typeName(c.info, lit) != module+"internal/engine.Route" || len(lit.Elts) != 2 {
						continue
					}
					op, ok := constString(c.info, lit.Elts[1])
					if !ok {
						continue
					}
					route := c.info.Defs[vs.Names[i]]
					named := false
					for obj, fd := range c.decls {
						if readsOperation(c.info, fd, route) {
							named = true
							out = append(out, door{where: fset.Position(lit.Pos()).String(), op: op, serve: obj})
						}
					}
					if !named {
						out = append(out, door{where: fset.Position(lit.Pos()).String(), op: op})
					}
				}
			}
		}
	}
	return out
}

// readsOperation says whether fd reads route.Operation.
func readsOperation(info *types.Info, fd *ast.FuncDecl, route types.Object) bool {
	found := false
	ast.Inspect(fd, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Operation" {
			if id, ok := sel.X.(*ast.Ident); ok && info.Uses[id] == route {
				found = true
			}
		}
		return !found
	})
	return found
}

// reaches lists the methods of *Service that from calls, through the
// functions of its own package it calls.
func (c *checked) reaches(from types.Object) map[string]bool {
	got := map[string]bool{}
	seen := map[types.Object]bool{}
	queue := []types.Object{from}
	for len(queue) > 0 {
		obj := queue[0]
		queue = queue[1:]
		if seen[obj] {
			continue
		}
		seen[obj] = true
		fd := c.decls[obj]
		if fd == nil {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if s := c.info.Selections[n]; s != nil && isService(s.Recv()) {
					got[s.Obj().Name()] = true
				}
			case *ast.Ident:
				if o := c.info.Uses[n]; o != nil && o.Pkg() == c.pkg {
					if fn, ok := o.(*types.Func); ok {
						queue = append(queue, fn.Origin())
					}
				}
			}
			return true
		})
	}
	return got
}

func isService(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == module+"internal/sandboxes" && n.Obj().Name() == "Service"
}

// callee is the called function's full name, "" for none known.
func callee(info *types.Info, call *ast.CallExpr) string {
	fun := call.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	if id == nil {
		return ""
	}
	if fn, ok := info.Uses[id].(*types.Func); ok && fn.Pkg() != nil && fn.Type().(*types.Signature).Recv() == nil {
		return fn.Pkg().Path() + "." + fn.Name()
	}
	return ""
}

// paramIndex is the index among fd's parameters of name, the field i's.
func paramIndex(fd *ast.FuncDecl, field int, name *ast.Ident) int {
	n := 0
	for i, p := range fd.Type.Params.List {
		for _, pn := range p.Names {
			if i == field && pn == name {
				return n
			}
			n++
		}
	}
	return -1
}

// stripIndex is a generic function's expression without its instance's
// type arguments.
func stripIndex(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.IndexExpr:
		return x.X
	case *ast.IndexListExpr:
		return x.X
	}
	return e
}

// funcOf is the function or method an expression names (run, s.kill),
// nil for a literal nil.
func funcOf(info *types.Info, e ast.Expr) types.Object {
	switch e := e.(type) {
	case *ast.Ident:
		if fn, ok := info.Uses[e].(*types.Func); ok {
			return fn.Origin()
		}
	case *ast.SelectorExpr:
		if s := info.Selections[e]; s != nil {
			if fn, ok := s.Obj().(*types.Func); ok {
				return fn.Origin()
			}
		}
		if fn, ok := info.Uses[e.Sel].(*types.Func); ok {
			return fn.Origin()
		}
	}
	return nil
}

func typeName(info *types.Info, e ast.Expr) string {
	tv, ok := info.Types[e]
	if !ok {
		return ""
	}
	if n, ok := tv.Type.(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path() + "." + n.Obj().Name()
	}
	return ""
}

// constString is the constant string e is, if it is one.
func constString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// stringArg is the constant string an argument is: a door names its
// operation by a literal, so that this test can read it.
func stringArg(t *testing.T, info *types.Info, e ast.Expr) string {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		t.Errorf("%s: an operation named by no constant string", fset.Position(e.Pos()))
		return ""
	}
	return constant.StringVal(tv.Value)
}

// Every door of an operation (a command that Does it, a tool, a route)
// reaches that operation's one function on the Service; every operation
// with a function has it, and the command line offers it.
func TestDoorsFollowTheCatalogue(t *testing.T) {
	t.Parallel()
	byDoor := map[string][]string{} // op → the kinds of door that offer it
	for _, c := range doorPackages(t) {
		for _, d := range c.doors(t) {
			if d.op == "" {
				continue
			}
			var op *Operation
			for _, o := range catalogue {
				if o.Name == d.op {
					op = o
				}
			}
			if op == nil {
				t.Errorf("%s: no operation %q in the catalogue", d.where, d.op)
				continue
			}
			kind := strings.TrimPrefix(c.path, module+"internal/")
			if strings.HasPrefix(kind, "cmd/") {
				kind = "cmd"
			}
			byDoor[d.op] = append(byDoor[d.op], kind)
			switch {
			case op.Func == "" && d.serve != nil:
				t.Errorf("%s: a door serves %s, which the catalogue says abx does not offer: give it its function", d.where, d.op)
			case op.Func == "":
			case d.serve == nil:
				t.Errorf("%s: %s has no function serving it", d.where, d.op)
			case !c.reaches(d.serve)[op.Func]:
				t.Errorf("%s: %s (%s) never calls Service.%s, the operation's function", d.where, d.serve.Name(), d.op, op.Func)
			}
		}
	}
	for _, op := range catalogue {
		if op.Func == "" {
			continue
		}
		if !op.method() {
			t.Errorf("operation %s: *Service has no method %s", op.Name, op.Func)
		}
		built := op.Call != nil && op.Door != nil && op.Door.Group != "" // a command built from it
		if !built && !slices.Contains(byDoor[op.Name], "cmd") {
			t.Errorf("operation %s: no command of the command line Does it", op.Name)
		}
	}
	if t.Failed() {
		return
	}
	var names []string
	for n, kinds := range byDoor {
		names = append(names, n+" "+strings.Join(kinds, ","))
	}
	sort.Strings(names)
	t.Logf("doors by operation:\n%s", strings.Join(names, "\n"))
}

// No door holds a rule of its own: a capability, a bound or a check of an
// input is the operations' (they check each once a call, in their words
// with the door's names). A door names an operation; it never names the
// capability the operation needs, calls a rule's check, reads a bound's
// constant, or asks the provider's descriptor.
func TestDoorsHoldNoRules(t *testing.T) {
	t.Parallel()
	// What the command line applies as it parses, before any operation:
	// a command line may name several sandboxes, none sent before every
	// one is read (the ID rule is the provider's, shared).
	allowed := map[string][]string{
		module + "internal/sandboxes.CheckSandboxID": {module + "internal/cmdutil"},
		module + "internal/sandboxes.CheckListed":    nil, // a check of what a server answered, not of input
	}
	for _, c := range doorPackages(t) {
		for id, obj := range c.info.Uses {
			name, bad := ruleOf(obj)
			if !bad {
				continue
			}
			if pkgs, ok := allowed[name]; ok && (pkgs == nil || slices.Contains(pkgs, c.path)) {
				continue
			}
			t.Errorf("%s: %s uses %s: a door names its operation (cmdutil.Does, add, Route) and leaves the rules to it",
				fset.Position(id.Pos()), c.path, name)
		}
	}
}

// ruleOf says whether obj is a rule a door must not hold, and its name.
func ruleOf(obj types.Object) (string, bool) {
	if obj.Pkg() == nil {
		return "", false
	}
	full := obj.Pkg().Path() + "." + obj.Name()
	switch obj.Pkg().Path() {
	case module + "internal/provider":
		// A capability constant.
		if k, ok := obj.(*types.Const); ok {
			if n, ok := k.Type().(*types.Named); ok && n.Obj().Name() == "Capability" {
				return full, true
			}
		}
	case module + "internal/sandboxes":
		switch o := obj.(type) {
		case *types.Const:
			return full, strings.HasPrefix(o.Name(), "Min") || strings.HasPrefix(o.Name(), "Max")
		case *types.Func:
			if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
				if isService(sig.Recv().Type()) {
					switch o.Name() {
					case "Check", "Supports", "Envd", "Interpreter":
						return "(*sandboxes.Service)." + o.Name(), true
					}
				}
				return "", false
			}
			return full, strings.HasPrefix(o.Name(), "Check") || strings.HasPrefix(o.Name(), "Parse")
		}
	}
	return "", false
}

// An operation declared whole has its doors built from the declaration
// (cmdutil.NewCmdDeclared, the MCP server's addDeclared, the engine's
// declared routes), which all run its Call: the Call is one call of the
// operation's function on the Service it is handed.
func TestDeclaredCallsReachTheirFunction(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob("*.go")
	calls := map[string]*ast.FuncLit{} // by operation
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		findCalls(f, calls)
	}
	checkCalls(t, calls)
}

// findCalls finds the operations' Calls written in f.
func findCalls(f *ast.File, calls map[string]*ast.FuncLit) {
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var name string
		var call *ast.FuncLit
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			switch k, _ := kv.Key.(*ast.Ident); {
			case k == nil:
			case k.Name == "Name":
				if b, ok := kv.Value.(*ast.BasicLit); ok {
					name = strings.Trim(b.Value, `"`)
				}
			case k.Name == "Call":
				call, _ = kv.Value.(*ast.FuncLit)
			}
		}
		if name != "" && call != nil {
			calls[name] = call
		}
		return true
	})
}

// checkCalls holds each operation's Call to one call of its function.
func checkCalls(t *testing.T, calls map[string]*ast.FuncLit) {
	for _, op := range catalogue {
		if op.Call == nil {
			continue
		}
		lit := calls[op.Name]
		if lit == nil {
			t.Errorf("operation %s: its Call is not a function written in its declaration", op.Name)
			continue
		}
		service := lit.Type.Params.List[1].Names[0].Name
		found := false
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == service && sel.Sel.Name == op.Func {
					found = true
				}
			}
			return true
		})
		if !found {
			t.Errorf("operation %s: its Call never calls %s.%s, the operation's function", op.Name, service, op.Func)
		}
		if op.Door == nil || op.Door.Line == nil {
			t.Errorf("operation %s: a Call without a Door to say its result", op.Name)
		}
	}
}
