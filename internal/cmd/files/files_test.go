//go:build unix

package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// fakeSandbox is one running sandbox of the emulator's sandbox-manager and
// envd, served by httptest. Its files are real ones under home, so a test
// can set them up and look at them directly.
type fakeSandbox struct {
	env  map[string]string
	srv  *manager.Server
	id   string
	home string
}

// newFakeSandbox starts the fake with the clusters' envd, 0.2.10, and
// creates a sandbox in it.
func newFakeSandbox(t *testing.T) *fakeSandbox {
	t.Helper()
	return newFakeSandboxVersion(t, "0.2.10")
}

// newFakeSandboxVersion starts the fake with this envd version and creates
// a sandbox in it. The data plane is reached on the fake's own origin (the
// private protocol's /kruise/{id}/{port}), as docs/configuration.md
// describes for a port-forward.
func newFakeSandboxVersion(t *testing.T, envdVersion string) *fakeSandbox {
	t.Helper()
	srv := manager.New(manager.Options{APIKey: emutest.Key, Domain: "abx.test", EnvdVersion: envdVersion, KeepRequests: true})
	gw := emulator.NewGateway(srv, t.TempDir(), envdVersion)
	t.Cleanup(gw.Close)
	ts := httptest.NewServer(gw)
	t.Cleanup(ts.Close)
	s := &fakeSandbox{srv: srv, env: map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": ts.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  emutest.Key,
		"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
	}}
	f, _ := s.factory(t, false, "")
	p, err := f.Provider()
	checkErr(t, err, "", "")
	sb, err := p.Create(t.Context(), provider.CreateRequest{Template: "base"})
	checkErr(t, err, "", "")
	s.id, s.home = sb.SandboxID, gw.Envd(sb.SandboxID).Home()
	srv.ResetLog()
	return s
}

// factory is a Factory on the fake as the root leaves it before a command
// runs: no global flags given, the provider chosen by the environment.
func (s *fakeSandbox) factory(t *testing.T, tty bool, format output.Format) (*cmdutil.Factory, factorytest.Streams) {
	t.Helper()
	f, io := factorytest.NewFactory(tty, s.env, format)
	return f, io
}

// run runs argv under `abx files` on the fake, printing in format to
// buffers (a terminal when tty).
func (s *fakeSandbox) run(t *testing.T, tty bool, format output.Format, argv ...string) (factorytest.Streams, error) {
	t.Helper()
	f, io := s.factory(t, tty, format)
	return io, cmdtest.Exec(NewCmdFiles(f), argv...)
}

// entry runs argv with -o json and decodes the entry it prints, with
// nothing on stderr.
func (s *fakeSandbox) entry(t *testing.T, argv ...string) envd.Entry {
	t.Helper()
	io, err := s.run(t, false, output.JSON, argv...)
	checkErr(t, err, "", "")
	var e envd.Entry
	if err := json.Unmarshal(io.Out.Bytes(), &e); err != nil || io.ErrOut.Len() != 0 {
		t.Errorf("stdout %q (%v), stderr %q", io.Out, err, io.ErrOut)
	}
	return e
}

// put writes a file (a slash-separated path under the home) in the sandbox.
func (s *fakeSandbox) put(t *testing.T, rel, body string) {
	t.Helper()
	transfertest.WriteTree(t, s.home, map[string]string{rel: body})
}

// get reads a file of the sandbox; "" with ok false when there is none.
func (s *fakeSandbox) get(t *testing.T, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.home, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// checkErr fails unless err is nil and want is "", or err has code and
// says want.
func checkErr(t *testing.T, err error, code abxerr.Code, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	var e *abxerr.Error
	if !errors.As(err, &e) || e.Code != code || !strings.Contains(e.Message, want) {
		t.Fatalf("error %v, want %s saying %q", err, code, want)
	}
}

// wantOutput fails unless a verb printed stdout and stderr.
func wantOutput(t *testing.T, io factorytest.Streams, stdout, stderr string) {
	t.Helper()
	if io.Out.String() != stdout || io.ErrOut.String() != stderr {
		t.Errorf("stdout %q, stderr %q; want %q, %q", io.Out, io.ErrOut, stdout, stderr)
	}
}

// verbCase is a TestNewCmdX row of a files verb: argv after the verb's
// name, and the options it becomes, or the error (of code) refusing it.
type verbCase struct {
	name string
	argv []string
	want any
	code abxerr.Code
	err  string
}

// parseVerb runs the cases through the verb newCmd builds, under a bare
// files group that gives it the inherited --user: factorytest.Parse sees the
// options without the factory's streams, printer and envd, or the error,
// whose code is checked too.
func parseVerb[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(context.Context, *O) error) *cobra.Command, cases []verbCase) {
	t.Helper()
	build := func(f *cmdutil.Factory, got *any) *cobra.Command {
		group := &cobra.Command{Use: "files"}
		addUserFlag(group)
		group.AddCommand(newCmd(f, func(_ context.Context, o *O) error { *got = fromArgv(o); return nil }))
		return group
	}
	f, _ := factorytest.NewFactory(false, nil, "")
	verb := newCmd(f, nil).Name()
	argvCases := make([]factorytest.ArgvCase, len(cases))
	for i, tc := range cases {
		argv := append([]string{verb}, tc.argv...)
		argvCases[i] = factorytest.ArgvCase{Name: tc.name, Argv: argv, Want: tc.want, WantErr: tc.err}
		if tc.code == "" {
			continue
		}
		t.Run(tc.name+", code", func(t *testing.T) {
			t.Parallel()
			f, _ := factorytest.NewFactory(false, nil, "")
			var got any
			err := cmdtest.Exec(build(f, &got), argv...)
			if e := abxerr.From(err); e == nil || e.Code != tc.code {
				t.Errorf("error %v, want %s", err, tc.code)
			}
		})
	}
	factorytest.Parse(t, argvCases, build)
}

// pathCases are the rows of a verb that takes ID PATH: what it makes of
// them (want puts the target in the verb's options), and the command
// lines it refuses as such.
func pathCases(verb string, want func(target) any) []verbCase {
	return []verbCase{
		{name: "relative path", argv: []string{"sb-1", "work/out"}, want: want(target{ID: "sb-1", Path: "work/out"})},
		{name: "absolute path", argv: []string{"sb-1", "/tmp/scratch"}, want: want(target{ID: "sb-1", Path: "/tmp/scratch"})},
		{name: "user after", argv: []string{"sandbox/sb-1", "/tmp/x", "--user", "root"}, want: want(target{ID: "sb-1", User: "root", Path: "/tmp/x"})},
		{name: "user before", argv: []string{"-u", "root", "sandbox/sb-1", "x"}, want: want(target{ID: "sb-1", User: "root", Path: "x"})},
		{name: "no path", argv: []string{"sb-1"}, code: abxerr.Usage, err: "files " + verb + " needs ID PATH"},
		{name: "two paths", argv: []string{"sb-1", "a", "b"}, code: abxerr.Usage, err: "files " + verb + " takes ID PATH, got 3 arguments"},
	}
}

// refusedTargets are rows every verb refuses before anything is sent,
// whatever paths follow the ID: sandbox IDs that cannot be one, users
// that are no Linux user's name, and each of the paths left empty or not
// UTF-8. The verb's operation refuses them (refuseVerb).
func refusedTargets(paths ...string) []verbCase {
	var cases []verbCase
	refuse := func(err string, argv ...string) {
		cases = append(cases, verbCase{name: fmt.Sprintf("%q", argv), argv: argv, code: abxerr.InvalidInput, err: err})
	}
	for _, id := range []string{"a/b", "a\tb", "..", "sb 1", "sandbox/", "", " "} {
		refuse(fmt.Sprintf("invalid sandbox ID %q", strings.TrimPrefix(id, "sandbox/")), append([]string{id}, paths...)...)
	}
	refuse(`invalid --user "a:b"`, append([]string{"sb-1", "--user", "a:b"}, paths...)...)
	for i := range paths {
		argv := append([]string{"sb-1"}, paths...)
		argv[i+1] = ""
		refuse("empty path", argv...)
		// envd's file service carries names as UTF-8 strings only.
		argv = append([]string{"sb-1"}, paths...)
		argv[i+1] = "bad\xff"
		refuse(`"bad\xff" is not UTF-8`, argv...)
	}
	return cases
}

// refuseVerb runs each case's argv under `abx files VERB`, its operation
// included, on a provider whose servers must hear nothing: each is
// refused with its code and words before anything is sent, and before
// stdin is read.
func refuseVerb(t *testing.T, verb string, cases []verbCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run("refused "+tc.name, func(t *testing.T) {
			t.Parallel()
			var heard atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				heard.Add(1)
				http.Error(w, "nothing should come", http.StatusTeapot)
			}))
			t.Cleanup(srv.Close)
			f, io := factorytest.NewFactory(false, map[string]string{
				"ABX_PROVIDER":                    "alicloud-container",
				"ABX_ALICLOUD_CONTAINER_BASE_URL": srv.URL + "/kruise/api",
				"ABX_ALICLOUD_CONTAINER_API_KEY":  emutest.Key,
				"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
			}, "")
			const stdin = "never read"
			io.In.WriteString(stdin)
			err := cmdtest.Exec(NewCmdFiles(f), append([]string{verb}, tc.argv...)...)
			checkErr(t, err, tc.code, tc.err)
			if n := heard.Load(); n != 0 || io.In.Len() != len(stdin) {
				t.Errorf("the servers heard %d requests, %d bytes of stdin were read", n, len(stdin)-io.In.Len())
			}
		})
	}
}

// localFile makes a directory holding one file, data, and returns the
// three paths: the directory, the file and one that does not exist.
func localFile(t *testing.T) (dir, file, missing string) {
	t.Helper()
	dir = t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"data": "a,b\n"})
	return dir, filepath.Join(dir, "data"), filepath.Join(dir, "missing")
}

// fromArgv is what argv made of a verb's options: them without the
// factory's streams, printer and envd client.
func fromArgv[O any](o *O) any {
	v := reflect.ValueOf(o).Elem()
	for _, name := range []string{"IO", "Printer", "Sandboxes"} {
		if fv := v.FieldByName(name); fv.IsValid() {
			fv.SetZero()
		}
	}
	return *o
}

func TestNewCmdFiles(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, nil, "")
	files := NewCmdFiles(f)
	if files.Name() != "files" || files.PersistentFlags().ShorthandLookup("u") == nil {
		t.Fatalf("group %q without -u", files.Name())
	}
	var names []string
	ops := map[string]string{"ls": "files.list", "stat": "files.stat", "read": "files.read", "write": "files.write",
		"mkdir": "files.mkdir", "mv": "files.move", "rm": "files.remove", "cp": "files.copy", "watch": "files.watch",
		"upload-url": "files.upload-url", "download-url": "files.download-url"}
	needs := map[string]provider.Capability{"watch": provider.FilesWatch, "upload-url": provider.FilesTransfer, "download-url": provider.FilesTransfer}
	for _, c := range files.Commands() {
		names = append(names, c.Name())
		want := provider.FilesRW
		if c, ok := needs[c.Name()]; ok {
			want = c
		}
		op := cmdutil.Operation(c)
		if op == nil || op.Name != ops[c.Name()] || op.Capability != want {
			t.Errorf("%s calls %+v, want %s, which needs %q", c.Name(), op, ops[c.Name()], want)
		}
		if cmdutil.IsNoJSON(c) != (c.Name() == "read") {
			t.Errorf("%s: NoJSON %v", c.Name(), cmdutil.IsNoJSON(c))
		}
	}
	if got := strings.Join(names, " "); got != "cp download-url ls mkdir mv read rm stat upload-url watch write" {
		t.Errorf("verbs %q", got)
	}
}
