//go:build unix

package sandbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// killCluster is the fake cluster, and a way to run `abx kill` on it.
type killCluster struct {
	srv *manager.Server
	env map[string]string
}

func newKillCluster(t *testing.T) *killCluster {
	t.Helper()
	srv, env := emutest.Cluster(t)
	return &killCluster{srv: srv, env: env}
}

// create makes a sandbox with metadata md and returns its ID.
func (c *killCluster) create(t *testing.T, md map[string]string) string {
	t.Helper()
	f, _ := factorytest.NewFactory(false, c.env, "")
	s, err := f.Sandboxes.Create(t.Context(), provider.CreateRequest{Template: "base", Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	return s.SandboxID
}

// kill runs `abx kill argv...` printing in format, on a terminal when
// answer is not nil (which is then what the user types).
func (c *killCluster) kill(t *testing.T, format output.Format, answer *string, argv ...string) (factorytest.Streams, error) {
	t.Helper()
	f, io := factorytest.NewFactory(answer != nil, c.env, format)
	f.IO.Color = false
	if answer != nil {
		io.In.WriteString(*answer)
	}
	return io, cmdtest.Exec(NewCmdKill(f, nil), argv...)
}

func TestKillReportsEachSandbox(t *testing.T) {
	t.Parallel()
	c := newKillCluster(t)
	a, b := c.create(t, nil), c.create(t, nil)
	io, err := c.kill(t, output.JSON, nil, a, "default--base-gone1", b)
	if e := abxerr.From(err); e == nil || e.Code != abxerr.NotFound || abxerr.Exit(err, false) != 3 {
		t.Fatalf("error %v, want E3001 (exit 3)", err)
	}
	var results []struct {
		Status string
		Error  *struct{ Code string }
	}
	if err := json.Unmarshal(io.Out.Bytes(), &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || results[0].Status != "killed" || results[1].Status != "not_found" ||
		results[1].Error == nil || results[1].Error.Code != "E3001" || results[2].Status != "killed" {
		t.Errorf("results %s", io.Out)
	}

	// Killed twice: reported, and exit 3, unless --ignore-not-found.
	if _, err := c.kill(t, "", nil, a); abxerr.From(err).Code != abxerr.NotFound || !strings.Contains(err.Error(), "killed: "+a) {
		t.Errorf("second kill: %v", err)
	}
	io, err = c.kill(t, "", nil, a, "--ignore-not-found")
	if err != nil || io.ErrOut.String() != "sandbox "+a+" already gone\n" {
		t.Errorf("ignored: %v %q", err, io.ErrOut)
	}
}

func TestKillSeveralMissingSumsUp(t *testing.T) {
	t.Parallel()
	c := newKillCluster(t)
	_, err := c.kill(t, "", nil, "sb-x", "sb-y")
	if e := abxerr.From(err); e == nil || e.Code != abxerr.NotFound || !strings.HasPrefix(e.Message, "2 of 2 sandboxes not killed: sb-x: ") {
		t.Errorf("%v", err)
	}
}

func TestKillAllWithFilters(t *testing.T) {
	t.Parallel()
	c := newKillCluster(t)
	keep := c.create(t, map[string]string{"owner": "me"})
	for range 20 {
		c.create(t, map[string]string{"owner": "ci"})
	}
	io, err := c.kill(t, output.Name, nil, "--all", "--metadata", "owner=ci", "--yes")
	if lines := strings.Split(strings.TrimSuffix(io.Out.String(), "\n"), "\n"); err != nil || len(lines) != 20 {
		t.Fatalf("%v, %d lines; stderr %q", err, len(lines), io.ErrOut)
	}
	if left := c.srv.Sandboxes(); len(left) != 1 || left[0].ID != keep {
		t.Errorf("left %v, want only %s", left, keep)
	}
	io, err = c.kill(t, "", nil, "--all", "--metadata", "owner=nobody", "--yes")
	if err != nil || io.ErrOut.String() != "no sandboxes match\n" {
		t.Errorf("nothing to kill: %v %q", err, io.ErrOut)
	}
}

func TestKillAllAsksOnATerminal(t *testing.T) {
	t.Parallel()
	c := newKillCluster(t)
	c.create(t, nil)
	c.create(t, nil)
	for _, tc := range []struct {
		answer string
		code   int
		left   int
	}{
		{"n\n", 2, 2},
		{"\n", 2, 2},
		{"y\n", 0, 0},
	} {
		io, err := c.kill(t, "", &tc.answer, "--all")
		if abxerr.Exit(err, false) != tc.code || !strings.HasPrefix(io.ErrOut.String(), "Kill 2 sandboxes (default--base-") {
			t.Errorf("answer %q: %v, stderr %q", tc.answer, err, io.ErrOut)
		}
		if n := len(c.srv.Sandboxes()); n != tc.left {
			t.Errorf("answer %q: %d sandboxes left, want %d", tc.answer, n, tc.left)
		}
	}
}

// The question agrees with its count: one sandbox is not "1 sandboxes".
func TestKillAllAsksOfOneSandbox(t *testing.T) {
	t.Parallel()
	c := newKillCluster(t)
	id := c.create(t, nil)
	no := "n\n"
	io, err := c.kill(t, "", &no, "--all")
	if abxerr.Exit(err, false) != 2 || !strings.HasPrefix(io.ErrOut.String(), "Kill 1 sandbox ("+id+")? [y/N] ") {
		t.Errorf("%v, stderr %q", err, io.ErrOut)
	}
}
