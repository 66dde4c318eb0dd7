package root

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

func newFactory() *cmdutil.Factory {
	io, _, _, _ := output.Test(false)
	return factory.New(io, func(string) string { return "" }, factory.Options{})
}

// The names a run goes by to build one command are the names that command
// has, and every command below the root is a verb some group declares.
func TestVerbsAreNamedAsBuilt(t *testing.T) {
	t.Parallel()
	f := newFactory()
	var names []string
	for _, v := range verbs() {
		c := v.Build(f)
		if got := append([]string{c.Name()}, c.Aliases...); !slices.Equal(got, v.Names) {
			t.Errorf("the verb's names %v, the command's %v", v.Names, got)
		}
		names = append(names, v.Names[0])
	}
	for _, c := range NewCmdRoot(f).Commands() {
		if c.Name() != "completion" && !slices.Contains(names, c.Name()) {
			t.Errorf("%s is below the root but no group declares it", c.Name())
		}
	}
}

// Adding a verb touches its group only (docs/architecture.md): every verb
// comes from a group's own list, each group is a package of its own, and
// the root's code names no verb, so it holds no list (of commands,
// completions or stubs) that would need the new one.
func TestAddingAVerbTouchesOneGroup(t *testing.T) {
	t.Parallel()
	declared := map[string]string{} // verb → the package of the group declaring it
	for _, group := range verbGroups {
		pkg := packageOf(group)
		if pkg == "github.com/abx-dev/abx/internal/cmd/root" || !strings.HasPrefix(pkg, "github.com/abx-dev/abx/internal/cmd/") {
			t.Errorf("a group is declared by %s", pkg)
		}
		for _, v := range group() {
			if other, ok := declared[v.Names[0]]; ok {
				t.Errorf("%s is declared by %s and %s", v.Names[0], other, pkg)
			}
			declared[v.Names[0]] = pkg
		}
	}
	// The catalogue's whole declarations are a group of their own: their
	// commands are built from the operations, not written in the root.
	for _, v := range cmdutil.DeclaredVerbs() {
		if other, ok := declared[v.Names[0]]; ok {
			t.Errorf("%s is declared by %s and the catalogue", v.Names[0], other)
		}
		declared[v.Names[0]] = "github.com/abx-dev/abx/internal/sandboxes"
	}
	var names []string
	for _, v := range verbs() {
		if _, ok := declared[v.Names[0]]; !ok && !slices.ContainsFunc(helpTopics(), func(h cmdutil.Verb) bool { return h.Names[0] == v.Names[0] }) {
			t.Errorf("%s is the root's own verb", v.Names[0])
		}
		if _, ok := declared[v.Names[0]]; ok {
			names = append(names, v.Names...)
		}
	}
	// A string of the root's that is a command path ("files cp", "kill")
	// is a table of verbs in the root; the root's own flags (and cobra's
	// --version) are no verbs.
	path := regexp.MustCompile(`^[a-z][a-z-]*( [a-z][a-z-]*){0,2}$`)
	whole := NewCmdRoot(newFactory())
	whole.InitDefaultVersionFlag()
	flags := whole.Flags()
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			if path.MatchString(s) && flags.Lookup(s) == nil && slices.Contains(names, strings.Fields(s)[0]) {
				t.Errorf("%s: the root names the verb %q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}

// packageOf is the import path of the package that defines the function
// fn.
func packageOf(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	slash := strings.LastIndex(name, "/")
	return name[:slash+strings.Index(name[slash:], ".")]
}

// A run that builds only what its line needs finds the command the whole
// tree finds.
func TestTheLazyTreeFindsWhatTheWholeTreeFinds(t *testing.T) {
	t.Parallel()
	lines := [][]string{
		{"url", "sb-1", "8080"}, {"-o", "json", "list"}, {"ls"}, {"--provider", "x", "info", "a"},
		{"--jq", ".id", "create", "--template", "base"}, {"files", "ls", "a", "/"}, {"files", "watch", "a", "b"},
		{"run-code", "contexts", "list", "a"}, {"--debug", "exec", "a", "--", "ls"}, {"environment"},
		{"--version"}, {"-o"}, {"--no-color", "--", "list"}, {"version", "extra"}, {"template", "build"},
		{"lsit"}, {"help", "create"}, {"completion", "bash"},
	}
	for _, line := range lines {
		f := newFactory()
		whole, _, errWhole := NewCmdRoot(f).Find(line)
		lazy := newTree(newFactory())
		lazy.lazy(line)
		got, _, errLazy := lazy.root.Find(line)
		if (errWhole == nil) != (errLazy == nil) || whole.CommandPath() != got.CommandPath() {
			t.Errorf("%q: the whole tree finds %q (%v), the lazy one %q (%v)", line, whole.CommandPath(), errWhole, got.CommandPath(), errLazy)
		}
	}
}

// --version prints the version alone wherever cobra would print it, the
// word after it taken as its value as cobra takes it, and nothing where
// cobra would not: --help outranks it, and no command but the root has it.
func TestVersionFlagPrintsTheVersionAsCobraWould(t *testing.T) {
	t.Parallel()
	version := meta.BuildInfo().String() + "\n"
	cases := []struct {
		line       []string
		code       int
		out, inErr string // out exactly, or its start when it ends in "..."
	}{
		{[]string{"--version"}, 0, version, ""},
		{[]string{"-v"}, 0, version, ""},
		{[]string{"--version", "url"}, 0, version, ""},
		{[]string{"-o", "bogus", "--version"}, abxerr.ExitUsage, "", `unknown output format "bogus"`}, // -o is read where it stands
		{[]string{"--version", "-o", "json"}, abxerr.ExitUsage, "", `unknown command "json"`},         // cobra's finding: -o taken as --version's value
		{[]string{"--version", "--help"}, 0, "abx manages cloud sandboxes...", ""},
		{[]string{"--version=false"}, 0, "abx manages cloud sandboxes...", ""},
		{[]string{}, 0, "abx manages cloud sandboxes...", ""},
		{[]string{"url", "--version"}, abxerr.ExitUsage, "", "unknown flag: --version"},
		{[]string{"--version=maybe"}, abxerr.ExitUsage, "", `invalid --version "maybe": not true or false`},
	}
	for _, c := range cases {
		io, _, out, errOut := output.Test(false)
		code := Run(context.Background(), io, func(string) string { return "" }, c.line)
		got := out.String()
		okOut := got == c.out
		if prefix, ok := strings.CutSuffix(c.out, "..."); ok {
			okOut = strings.HasPrefix(got, prefix)
		}
		if code != c.code || !okOut || !strings.Contains(errOut.String(), c.inErr) {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %.200q; want exit %d, stdout %q, stderr with %q",
				c.line, code, got, errOut.String(), c.code, c.out, c.inErr)
		}
	}
}

// named reads a line's words as cobra's Find does: here against Find on
// stand-ins that carry only the verbs' names and the root's flags.
func TestNamedFindsWhatCobraFinds(t *testing.T) {
	t.Parallel()
	tr := newTree(newFactory())
	probe := &cobra.Command{Use: tr.root.Name()}
	probe.PersistentFlags().AddFlagSet(tr.root.PersistentFlags())
	for _, v := range tr.verbs {
		probe.AddCommand(&cobra.Command{Use: v.Names[0], Aliases: v.Names[1:], Run: func(*cobra.Command, []string) {}})
	}
	lines := [][]string{
		{}, {"url", "sb-1", "8080"}, {"ls"}, {"list", "-o", "json"}, {"-o", "json", "list"}, {"-ojson", "list"},
		{"-o=json", "list"}, {"--output", "json", "list"}, {"--output=json", "list"}, {"-o"}, {"-o", "list"},
		{"--provider", "x", "info", "a"}, {"--debug", "exec", "a", "--", "ls"}, {"--no-color", "url"},
		{"--no-color", "--", "list"}, {"--", "list"}, {"--version"}, {"-v"}, {"--version", "url"}, {"-v", "list", "x"},
		{"--version", "-o", "json"}, {"--help"}, {"-h", "list"}, {"--bogus", "list"}, {"--bogus=1", "list"},
		{"-x", "list"}, {"-", "list"}, {"", "list"}, {"lsit"}, {"help", "create"}, {"completion", "bash"},
		{"__complete", "list", ""}, {"environment"}, {"files", "ls", "a", "/"}, {"--jq", ".id", "create"},
		{"--api-key", "k", "list"}, {"--api-key=k", "list"}, {"-o", "json", "-o", "wide", "ps"},
	}
	for _, line := range lines {
		want, wantOK := "", true
		cmd, _, err := probe.Find(line)
		switch {
		case err != nil:
			wantOK = false
		case cmd != probe:
			want = cmd.Name()
		}
		v, gotOK := tr.named(line)
		got := ""
		if v != nil {
			got = v.Names[0]
		}
		if gotOK != wantOK || (wantOK && got != want) {
			t.Errorf("%q: named %q (%v), cobra's Find %q (%v)", line, got, gotOK, want, wantOK)
		}
	}
}
