//go:build unix

package root

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/output"
)

func create(t *testing.T, e env, args ...string) string {
	t.Helper()
	r := run(t, e, false, append([]string{"create", "--template", "base", "-q"}, args...)...)
	if r.code != 0 {
		t.Fatalf("create: %d %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

func TestKillReportsEachSandbox(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	a, b := create(t, e), create(t, e)
	r := run(t, e, false, "kill", a, "default--base-gone1", b, "-o", "json")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (not found); stderr %q", r.code, r.stderr)
	}
	var results []struct {
		Status string
		Error  *struct{ Code string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || results[0].Status != "killed" || results[1].Status != "not_found" ||
		results[1].Error == nil || results[1].Error.Code != "E3001" || results[2].Status != "killed" {
		t.Errorf("results %s", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, `{"error":{"code":"E3001"`) {
		t.Errorf("stderr %q", r.stderr)
	}

	// Killed twice: reported, and exit 3, unless --ignore-not-found.
	r = run(t, e, false, "kill", a)
	if r.code != 3 || !strings.Contains(r.stderr, "killed: "+a) {
		t.Errorf("second kill: %d %q", r.code, r.stderr)
	}
	r = run(t, e, false, "kill", a, "--ignore-not-found")
	if r.code != 0 || r.stderr != "sandbox "+a+" already gone\n" {
		t.Errorf("ignored: %d %q", r.code, r.stderr)
	}
}

func TestKillSeveralMissingSumsUp(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	r := run(t, e, false, "kill", "sb-x", "sb-y")
	if r.code != 3 || !strings.Contains(r.stderr, "2 of 2 sandboxes not killed: sb-x: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("%d %q", r.code, r.stderr)
	}
}

func TestKillAllWithFilters(t *testing.T) {
	t.Parallel()
	srv, e := fakeManager(t)
	keep := create(t, e, "--metadata", "owner=me")
	for i := 0; i < 20; i++ {
		create(t, e, "--metadata", "owner=ci")
	}
	r := run(t, e, false, "kill", "--all", "--metadata", "owner=ci", "--yes", "-o", "name")
	if r.code != 0 || len(r.stdoutLines) != 20 {
		t.Fatalf("exit %d, %d lines; stderr %q", r.code, len(r.stdoutLines), r.stderr)
	}
	left := srv.Sandboxes()
	if len(left) != 1 || left[0].ID != keep {
		t.Errorf("left %v, want only %s", left, keep)
	}
	r = run(t, e, false, "kill", "--all", "--metadata", "owner=nobody", "--yes")
	if r.code != 0 || r.stderr != "no sandboxes match\n" {
		t.Errorf("nothing to kill: %d %q", r.code, r.stderr)
	}
}

func TestKillAllAsksOnATerminal(t *testing.T) {
	t.Parallel()
	srv, e := fakeManager(t)
	create(t, e)
	create(t, e)
	for _, tc := range []struct {
		answer string
		code   int
		left   int
	}{
		{"n\n", 2, 2},
		{"\n", 2, 2},
		{"y\n", 0, 0},
	} {
		io, in, _, errOut := output.Test(true)
		io.Color = false
		in.WriteString(tc.answer)
		code := runWith(io, e, "kill", "--all")
		if code != tc.code || !strings.HasPrefix(errOut.String(), "Kill 2 sandboxes (default--base-") {
			t.Errorf("answer %q: exit %d, stderr %q", tc.answer, code, errOut.String())
		}
		if n := len(srv.Sandboxes()); n != tc.left {
			t.Errorf("answer %q: %d sandboxes left, want %d", tc.answer, n, tc.left)
		}
	}
}

// The question agrees with its count: one sandbox is not "1 sandboxes".
func TestKillAllAsksOfOneSandbox(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	id := create(t, e)
	io, in, _, errOut := output.Test(true)
	io.Color = false
	in.WriteString("n\n")
	if code := runWith(io, e, "kill", "--all"); code != 2 || !strings.HasPrefix(errOut.String(), "Kill 1 sandbox ("+id+")? [y/N] ") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
