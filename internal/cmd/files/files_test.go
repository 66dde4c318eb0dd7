//go:build unix

package files

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

const testKey = "sk-unit-test"

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
	srv := manager.New(manager.Options{APIKey: testKey, Domain: "abx.test", EnvdVersion: envdVersion})
	gw := emulator.NewGateway(srv, t.TempDir(), envdVersion)
	t.Cleanup(gw.Close)
	ts := httptest.NewServer(gw)
	t.Cleanup(ts.Close)
	s := &fakeSandbox{srv: srv, env: map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": ts.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  testKey,
		"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
	}}
	f, _ := s.factory(t, false, "")
	p, err := f.Provider()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := p.Create(t.Context(), provider.CreateRequest{Template: "base"})
	if err != nil {
		t.Fatal(err)
	}
	s.id, s.home = sb.SandboxID, gw.Envd(sb.SandboxID).Home()
	srv.ResetLog()
	return s
}

// factory is a Factory on the fake as the root leaves it before a command
// runs: no global flags given, the provider chosen by the environment.
func (s *fakeSandbox) factory(t *testing.T, tty bool, format output.Format) (*cmdutil.Factory, cmdtest.Streams) {
	t.Helper()
	f, io := cmdtest.NewFactory(tty, s.env, format)
	if f.Flags == nil {
		// No global flags given: the environment alone configures the
		// provider.
		f.Flags = pflag.NewFlagSet("abx", pflag.ContinueOnError)
	}
	if _, err := f.SelectProvider(); err != nil {
		t.Fatal(err)
	}
	return f, io
}

// put writes a file (a slash-separated path under the home) in the sandbox.
func (s *fakeSandbox) put(t *testing.T, rel, body string) {
	t.Helper()
	p := filepath.Join(s.home, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
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

// execVerb runs one verb under a bare `files` group, which gives it the
// inherited --user the real group gives.
func execVerb(cmd *cobra.Command, argv ...string) error {
	group := &cobra.Command{Use: "files"}
	addUserFlag(group)
	group.AddCommand(cmd)
	return cmdtest.Exec(group, append([]string{cmd.Name()}, argv...)...)
}

// checkErr fails unless err is nil and want is "", or err has code and
// says want.
func checkErr(t *testing.T, err error, code abxerr.Code, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		return true
	}
	var e *abxerr.Error
	if !errors.As(err, &e) || e.Code != code || !strings.Contains(e.Message, want) {
		t.Fatalf("error %v, want %s saying %q", err, code, want)
	}
	return false
}

func TestNewCmdFiles(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.NewFactory(false, nil, "")
	files := NewCmdFiles(f)
	if files.Name() != "files" || files.PersistentFlags().ShorthandLookup("u") == nil {
		t.Fatalf("group %q without -u", files.Name())
	}
	var names []string
	for _, c := range files.Commands() {
		names = append(names, c.Name())
		if cmdutil.Capability(c) != provider.FilesRW {
			t.Errorf("%s needs %q, want %q", c.Name(), cmdutil.Capability(c), provider.FilesRW)
		}
		if cmdutil.IsNoJSON(c) != (c.Name() == "read") {
			t.Errorf("%s: NoJSON %v", c.Name(), cmdutil.IsNoJSON(c))
		}
	}
	if got := strings.Join(names, " "); got != "cp ls mkdir mv read rm stat write" {
		t.Errorf("verbs %q", got)
	}
}
