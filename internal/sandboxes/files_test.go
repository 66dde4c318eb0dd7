//go:build unix

package sandboxes

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	emuenvd "github.com/abx-dev/abx/internal/emulator/envd"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// filesService is the operations over the emulator's envd, as one
// sandbox's, with the capabilities caps; home is the sandbox's home on
// this machine.
func filesService(t *testing.T, caps ...provider.Capability) (s *Service, p *fake, home string) {
	t.Helper()
	e := emuenvd.New(emuenvd.Options{Root: t.TempDir(), KeepRequests: true})
	t.Cleanup(e.Close)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	p = &fake{url: srv.URL}
	return service(p, 0, caps...), p, e.Home()
}

// unread is stdin that must not be read: an operation refused reads
// nothing of what it was handed.
type unread struct{ read bool }

func (u *unread) Read([]byte) (int, error) { u.read = true; return 0, io.EOF }

// Every file operation refuses what it cannot send before anything is
// sent or read, whatever the door: an ID, a user, a path, a bound.
func TestFileOperationsRefuseBeforeAnyIO(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.FilesRW, provider.FilesWatch, provider.ExecRun)
	body := &unread{}
	mode := func(m string) *string { return &m }
	d := func(d time.Duration) *time.Duration { return &d }
	ops := map[string]func(id, user, p string) error{
		"list": func(id, user, p string) error { _, err := s.ListDir(ctx, id, user, p, 1); return err },
		"stat": func(id, user, p string) error { _, err := s.Stat(ctx, id, user, p); return err },
		"read": func(id, user, p string) error { _, err := s.ReadFile(ctx, id, user, p, io.Discard); return err },
		"write": func(id, user, p string) error {
			return s.WriteFile(ctx, id, user, p, nil, body)
		},
		"mkdir": func(id, user, p string) error {
			_, err := s.MakeDir(ctx, id, user, []string{"ok", p}, false)
			return err
		},
		"remove": func(id, user, p string) error { _, err := s.Remove(ctx, id, user, p); return err },
		"move":   func(id, user, p string) error { _, err := s.Move(ctx, id, user, "ok", p); return err },
		"copy":   func(id, user, p string) error { _, err := s.Copier(ctx, id, user, p); return err },
		"watch": func(id, user, p string) error {
			return s.Watch(ctx, id, user, Watching{Dir: p}, func(envd.FileEvent) error { return nil })
		},
	}
	for name, op := range ops {
		for _, bad := range []struct{ id, user, path, says string }{
			{"..", "", "x", `invalid sandbox ID ".."`},
			{"sb", "a:b", "x", `invalid user "a:b"`},
			{"sb", "", "", "empty path"},
			{"sb", "", "bad\xff", "is not UTF-8"},
		} {
			err := op(bad.id, bad.user, bad.path)
			if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, bad.says) {
				t.Errorf("%s of %q as %q: %v, want E1002 saying %s", name, bad.path, bad.user, err, bad.says)
			}
		}
	}
	for name, err := range map[string]error{
		"depth 0":        func() error { _, err := s.ListDir(ctx, "sb", "", ".", 0); return err }(),
		"depth 17":       func() error { _, err := s.ListDir(ctx, "sb", "", ".", 17); return err }(),
		"mode 4755":      s.WriteFile(ctx, "sb", "", "x", mode("4755"), body),
		"mode empty":     s.WriteFile(ctx, "sb", "", "x", mode(""), body),
		"mkdir nothing":  func() error { _, err := s.MakeDir(ctx, "sb", "", nil, true); return err }(),
		"watch for 0":    s.Watch(ctx, "sb", "", Watching{Dir: "x", Timeout: d(0)}, nil),
		"watch for 99ms": s.Watch(ctx, "sb", "", Watching{Dir: "x", Timeout: d(99 * time.Millisecond)}, nil),
		"watch 31 days":  s.Watch(ctx, "sb", "", Watching{Dir: "x", Timeout: d(31 * 24 * time.Hour)}, nil),
		"count -1":       s.Watch(ctx, "sb", "", Watching{Dir: "x", Count: -1}, nil),
	} {
		if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput {
			t.Errorf("%s: %v, want E1002", name, err)
		}
	}
	if len(p.log()) != 0 || p.reads.Load() != 0 || body.read {
		t.Errorf("the provider heard %q (%d reads); the body was read: %v", p.log(), p.reads.Load(), body.read)
	}
}

// A refusal names the input as the caller's door does.
func TestFileOperationsSpeakTheCallersWords(t *testing.T) {
	t.Parallel()
	s := service(&fake{}, 0, provider.FilesRW, provider.FilesWatch)
	cli := WithSpelling(t.Context(), Spelling{Names: map[string]string{"depth": "--depth", "timeout": "--timeout", "user": "--user"}, Quote: true})
	_, err := s.ListDir(cli, "sb", "", ".", 0)
	if e := abxerr.From(err); e.Message != "invalid --depth 0: must be between 1 and 16" ||
		e.Hint != "give the levels to list: 1 for the directory's own entries, at most 16" {
		t.Errorf("depth: %q (%q)", e.Message, e.Hint)
	}
	if _, err := s.ListDir(t.Context(), "sb", "", ".", -1); abxerr.From(err).Message != "invalid depth -1: must be between 1 and 16" {
		t.Errorf("depth, no door: %v", err)
	}
	second := 2 * time.Second
	half := 500 * time.Microsecond
	err = s.Watch(cli, "sb", "", Watching{Dir: ".", Timeout: &half}, nil)
	if e := abxerr.From(err); e.Message != `invalid --timeout "500µs": must be between 100ms and 30 days` {
		t.Errorf("timeout: %q", e.Message)
	}
	var zero time.Duration
	err = s.Watch(cli, "sb", "", Watching{Dir: ".", Timeout: &zero}, nil)
	if e := abxerr.From(err); e.Message != `invalid --timeout "0": must be between 100ms and 30 days` ||
		e.Hint != "0 is no time: leave --timeout out for no limit" {
		t.Errorf("no time: %q (%q)", e.Message, e.Hint)
	}
	if err := s.Watch(cli, "sb", "a b", Watching{Dir: ".", Timeout: &second}, nil); abxerr.From(err).Message != `invalid --user "a b"` {
		t.Errorf("user: %v", err)
	}
}

// A mode is given through the sandbox's chmod: a provider whose sandboxes
// run no processes refuses it before anything is sent, and writes without
// one.
func TestAModeNeedsProcesses(t *testing.T) {
	t.Parallel()
	s, p, home := filesService(t, provider.FilesRW)
	m := "755"
	body := &unread{}
	err := s.WriteFile(t.Context(), "sb", "", "run.sh", &m, body)
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Unsupported || !strings.Contains(e.Message, "exec.run") {
		t.Errorf("a mode without exec.run: %v", err)
	}
	if p.reads.Load() != 0 || body.read {
		t.Errorf("%d reads; the body was read: %v", p.reads.Load(), body.read)
	}
	if err := s.WriteFile(t.Context(), "sb", "", "run.sh", nil, strings.NewReader("#!/bin/sh\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(home, "run.sh")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("run.sh: %v (%v)", st.Mode(), err)
	}
	cp, err := s.Copier(t.Context(), "sb", "")
	if err != nil || cp.Modes != nil || cp.Links != nil {
		t.Errorf("a copier without processes sets modes or makes links (%v)", err)
	}
}

// The file operations against the emulator's envd: what each does, in
// the sandbox's own files.
func TestFileOperations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _, home := filesService(t, provider.FilesRW, provider.FilesWatch, provider.ExecRun)
	transfertest.WriteTree(t, home, map[string]string{"jobs/out/hi.txt": "hello\n", "jobs/b.txt": "b"})
	path := func(rel string) string { return filepath.Join(home, filepath.FromSlash(rel)) }

	list, err := s.ListDir(ctx, "sb", "", "jobs", 1)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v %+v", err, list)
	}
	if list, err = s.ListDir(ctx, "sb", "", "jobs", 2); err != nil || len(list) != 3 {
		t.Errorf("list two levels: %v %+v", err, list)
	}
	if _, err := s.ListDir(ctx, "sb", "", "jobs/b.txt", 1); abxerr.From(err).Code != abxerr.Rejected {
		t.Errorf("a file listed: %v", err)
	}
	if e, err := s.Stat(ctx, "sb", "", "jobs/out/hi.txt"); err != nil || e.Size != 6 || e.Type != "file" {
		t.Errorf("stat: %+v %v", e, err)
	}
	var got strings.Builder
	if n, err := s.ReadFile(ctx, "sb", "", "jobs/out/hi.txt", &got); err != nil || n != 6 || got.String() != "hello\n" {
		t.Errorf("read: %d %q %v", n, got.String(), err)
	}

	// A write: its parents made, its mode given, what it replaces keeps
	// its own.
	m := "750"
	if err := s.WriteFile(ctx, "sb", "", "bin/run.sh", &m, strings.NewReader("#!/bin/sh\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path("bin/run.sh")); err != nil || st.Mode().Perm() != 0o750 {
		t.Errorf("bin/run.sh: %v (%v)", st.Mode(), err)
	}
	if err := s.WriteFile(ctx, "sb", "", "bin/run.sh", nil, strings.NewReader("#!/bin/sh\necho\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path("bin/run.sh")); err != nil || st.Mode().Perm() != 0o750 {
		t.Errorf("bin/run.sh replaced: %v (%v)", st.Mode(), err)
	}
	cp, err := s.Copier(ctx, "sb", "", "up.txt")
	if err != nil || cp.Modes == nil || cp.Links == nil {
		t.Errorf("a copier of a sandbox that runs processes keeps no modes or links (%v)", err)
	}

	// mkdir, as mkdir: a missing parent named with the caller's flag, -p
	// taking what exists; those made before a failure are returned.
	cli := WithSpelling(ctx, Spelling{Names: map[string]string{"parents": "-p"}, Quote: true})
	made, err := s.MakeDir(cli, "sb", "", []string{"m1", "no/such"}, false)
	if e := abxerr.From(err); e == nil || e.Code != abxerr.NotFound || e.Message != "cannot create no/such: no does not exist" ||
		e.Hint != "add -p to create the missing parents" || len(made) != 1 || made[0].Path != "/home/user/m1" {
		t.Errorf("mkdir m1 no/such: %+v %v", made, err)
	}
	made, err = s.MakeDir(ctx, "sb", "", []string{"m1", "no/such"}, true)
	if err != nil || len(made) != 2 || !made[0].Existed || made[1].Existed || made[1].Type != "dir" {
		t.Errorf("mkdir -p m1 no/such: %+v %v", made, err)
	}

	if e, err := s.Move(ctx, "sb", "", "jobs/b.txt", "moved/b.txt"); err != nil || e.Path != "/home/user/moved/b.txt" {
		t.Errorf("move: %+v %v", e, err)
	}
	if removed, err := s.Remove(ctx, "sb", "", "jobs"); !removed || err != nil {
		t.Errorf("remove: %v %v", removed, err)
	}
	if _, err := os.Stat(path("jobs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("jobs is still there: %v", err)
	}
	if removed, err := s.Remove(ctx, "sb", "", "jobs"); removed || err != nil {
		t.Errorf("remove of what is not there: %v %v, want nothing removed and no error", removed, err)
	}
}

// A watch ends after Count changes, with success, or when its Timeout
// passes, with E6001 in the caller's words.
func TestAWatchEnds(t *testing.T) {
	t.Parallel()
	s, _, home := filesService(t, provider.FilesRW, provider.FilesWatch)
	if err := os.MkdirAll(filepath.Join(home, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var seen []string
	started := false
	err := s.Watch(ctx, "sb", "", Watching{Dir: "out", Count: 2, Started: func() {
		started = true
		transfertest.WriteTree(t, filepath.Join(home, "out"), map[string]string{"a.txt": "a", "b.txt": "b"})
	}}, func(ev envd.FileEvent) error {
		seen = append(seen, ev.Name)
		return nil
	})
	if err != nil || !started || len(seen) != 2 {
		t.Errorf("a watch for 2 changes: %v, started %v, saw %q", err, started, seen)
	}

	short := 200 * time.Millisecond
	cli := WithSpelling(ctx, Spelling{Names: map[string]string{"timeout": "--timeout", "count": "--count"}, Quote: true})
	err = s.Watch(cli, "sb", "", Watching{Dir: "out", Timeout: &short, Count: 3}, func(envd.FileEvent) error { return nil })
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Timeout || e.Message != "--timeout 200ms passed after 0 of 3 events" {
		t.Errorf("a watch of 3 changes for 200ms: %v", err)
	}
	err = s.Watch(ctx, "sb", "", Watching{Dir: "out", Timeout: &short}, func(envd.FileEvent) error { return nil })
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Timeout || e.Message != "timeout 200ms passed (0 events)" ||
		e.Hint != "use count N to stop, with success, after N events" {
		t.Errorf("a watch for 200ms: %v", err)
	}
}
