package providers

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

// The line the provider catalog's page gives for this provider.
const catalogSource = "alibaba-agent-sandbox/awesome-providers//alicloud-container"

func TestParseSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, id  string
		wantErr string // in the message; "" for none
	}{
		{catalogSource, "alicloud-container", ""},
		{"registry:alicloud-container", "alicloud-container", ""},
		{"alicloud-container", "alicloud-container", ""},
		{"o/r//foo", "foo", ""},
		{"registry:foo", "foo", ""},
		{"foo.v2_x", "foo.v2_x", ""},

		{"", "", "it is empty"},
		{"registry:", "", "registry: names no ID"},
		{"o/r//", "", "the ID is empty"},
		{"//alicloud-container", "", "OWNER/REPO before '//' is empty"},
		{"/r//alicloud-container", "", "a path"},
		{"o///alicloud-container", "", "before '//' is not OWNER/REPO"},
		{"o/r///alicloud-container", "", "the ID holds '/'"},
		{"o//alicloud-container", "", "before '//' is not OWNER/REPO"},
		{"o/r/x//alicloud-container", "", "before '//' is not OWNER/REPO"},
		{"o/r//a//b", "", "more than one '//'"},
		{"o/r//a/b", "", "the ID holds '/'"},
		{"../r//alicloud-container", "", "a path"},
		{"o/..//alicloud-container", "", `the REPO is ".."`},
		{"./alicloud-container", "", "a path"},
		{"..", "", `the ID is ".."`},
		{".", "", `the ID is "."`},
		{"registry:..", "", `the ID is ".."`},
		{"o/r//.", "", `the ID is "."`},
		{"https://github.com/o/r", "", "a URL"},
		{"git+ssh://o/r//x", "", "a URL"},
		{"/usr/lib/abx/alicloud-container", "", "a path"},
		{"~/providers/x", "", "a path"},
		{"o/r", "", "an ID holds no '/'"},
		{"alicloud-container/", "", "an ID holds no '/'"},
		{"alicloud container", "", "a space or a control character"},
		{"alicloud-container\n", "", "a space or a control character"},
		{"\x1b[31mred", "", "a space or a control character"},
		{"registry:a:b", "", "the ID holds ':'"},
		{"o/r//x@v1", "", "the ID holds '@'"},
		{"npm:foo", "", "the ID holds ':'"},
		{strings.Repeat("a", maxSourceLength+1), "", "longer than 512 bytes"},
	} {
		id, err := parseSource(tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.wantErr == "" && id != tc.id:
			t.Errorf("%q: ID %q, want %q", tc.in, id, tc.id)
		case tc.wantErr != "" && err == nil:
			t.Errorf("%q: ID %q, want an error saying %q", tc.in, id, tc.wantErr)
		case tc.wantErr != "":
			if !strings.Contains(err.Message, tc.wantErr) || !strings.Contains(err.Message, "want OWNER/REPO//ID, registry:ID or ID") {
				t.Errorf("%q: %q, want it to say %q and the forms", tc.in, err.Message, tc.wantErr)
			}
			if err.Code != abxerr.InvalidInput || strings.ContainsFunc(err.Message, func(r rune) bool { return r < ' ' || r == 0x7f }) {
				t.Errorf("%q: code %s, message %q: want E1002 on one line with no control characters", tc.in, err.Code, err.Message)
			}
		}
	}
}

// installIn is what install's argv becomes.
type installIn struct {
	Source, ID         string
	AllowUnpinned, Yes bool
}

func TestNewCmdInstall(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "the catalog's line", Argv: []string{catalogSource, "--allow-unpinned", "--yes"},
			Want: installIn{Source: catalogSource, ID: "alicloud-container", AllowUnpinned: true, Yes: true}},
		{Name: "registry form", Argv: []string{"registry:alicloud-container"},
			Want: installIn{Source: "registry:alicloud-container", ID: "alicloud-container"}},
		{Name: "bare ID", Argv: []string{"alicloud-container"}, Want: installIn{Source: "alicloud-container", ID: "alicloud-container"}},
		// Well formed: whether abx has it is for the run to say (exit 3).
		{Name: "unknown ID", Argv: []string{"registry:foo"}, Want: installIn{Source: "registry:foo", ID: "foo"}},
		{Name: "no SOURCE", Argv: nil, WantErr: "install needs SOURCE"},
		{Name: "two SOURCEs", Argv: []string{"a", "b"}, WantErr: "install takes SOURCE, got 2 arguments"},
		{Name: "empty", Argv: []string{""}, WantErr: `invalid SOURCE "": it is empty`},
		{Name: "URL", Argv: []string{"https://example.com/p.tar.gz"}, WantErr: "a URL"},
		{Name: "path", Argv: []string{"/tmp/provider"}, WantErr: "a path"},
		{Name: "dot dot", Argv: []string{"o/r//.."}, WantErr: `the ID is ".."`},
		{Name: "empty registry", Argv: []string{"registry:"}, WantErr: "registry: names no ID"},
		{Name: "two catalogs", Argv: []string{"o/r//x//y"}, WantErr: "more than one '//'"},
		{Name: "control character", Argv: []string{"a\x1bb"}, WantErr: `"a\x1bb"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdInstall(f, func(_ context.Context, o *InstallOptions) error {
			*got = installIn{Source: o.Source, ID: o.ID, AllowUnpinned: o.AllowUnpinned, Yes: o.Yes}
			return nil
		})
	})
}

func TestNewCmdUninstall(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "bare ID", Argv: []string{"alicloud-container"}, Want: "alicloud-container"},
		{Name: "registry form", Argv: []string{"registry:alicloud-container"}, Want: "alicloud-container"},
		{Name: "catalog form", Argv: []string{catalogSource}, Want: "alicloud-container"},
		{Name: "unknown ID", Argv: []string{"foo"}, Want: "foo"},
		{Name: "no ID", Argv: nil, WantErr: "uninstall needs ID"},
		{Name: "two IDs", Argv: []string{"a", "b"}, WantErr: "uninstall takes ID, got 2 arguments"},
		{Name: "URL", Argv: []string{"http://x/y"}, WantErr: "a URL"},
		{Name: "empty owner", Argv: []string{"/r//x"}, WantErr: "a path"},
		{Name: "space", Argv: []string{"alicloud container"}, WantErr: "a space"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdUninstall(f, func(_ context.Context, o *UninstallOptions) error { *got = o.ID; return nil })
	})
}

// Every form of install's output, against golden files, with no provider
// configured; a second run prints the same as the first.
func TestInstallShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		format output.Format
		tty    bool
	}{
		{"json", output.JSON, false}, {"piped", output.Table, false}, {"tty", output.Table, true}, {"name", output.Name, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, s := factorytest.NewFactory(tc.tty, nil, tc.format)
			var first string
			for i := range 2 {
				cmd := NewCmdInstall(f, func(ctx context.Context, o *InstallOptions) error {
					o.Version = "1.2.3"
					return runInstall(ctx, o)
				})
				if err := cmdtest.Exec(cmd, catalogSource, "--allow-unpinned", "--yes"); err != nil {
					t.Fatal(err)
				}
				if s.ErrOut.Len() != 0 {
					t.Errorf("stderr %q, want nothing", s.ErrOut)
				}
				if i == 0 {
					first = s.Out.String()
					cmdtest.Golden(t, "install."+tc.name, first)
				} else if s.Out.String() != first {
					t.Errorf("the second run printed %q, the first %q", s.Out, first)
				}
				s.Out.Reset()
			}
		})
	}
}

// Only the built-in providers resolve; uninstalling one is refused and
// changes nothing; both say what to do.
func TestInstallAndUninstallRefusals(t *testing.T) {
	t.Parallel()
	f, s := factorytest.NewFactory(false, nil, "")
	for _, tc := range []struct {
		name string
		run  func() error
		code abxerr.Code
		want string
	}{
		{"install unknown", func() error {
			return runInstall(context.Background(), &InstallOptions{Printer: f.Printer, Registry: f.Registry, Source: "registry:foo", ID: "foo"})
		}, abxerr.NotFound, `abx has no provider "foo": its providers are built in (alicloud-container), and it installs no plugins`},
		{"uninstall unknown", func() error {
			return runUninstall(context.Background(), &UninstallOptions{Registry: f.Registry, ID: "foo"})
		}, abxerr.NotFound, `abx has no provider "foo"`},
		{"uninstall built in", func() error {
			return runUninstall(context.Background(), &UninstallOptions{Registry: f.Registry, ID: "alicloud-container"})
		}, abxerr.InvalidInput, "alicloud-container is built into abx and cannot be uninstalled"},
	} {
		e := abxerr.From(tc.run())
		if e.Code != tc.code || e.Message != tc.want && !strings.HasPrefix(e.Message, tc.want) || e.Hint == "" {
			t.Errorf("%s: %s %q (hint %q), want %s %q with a hint", tc.name, e.Code, e.Message, e.Hint, tc.code, tc.want)
		}
	}
	if s.Out.Len()+s.ErrOut.Len() != 0 {
		t.Errorf("printed %q and %q", s.Out, s.ErrOut)
	}
}
