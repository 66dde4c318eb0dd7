//go:build unix

package files

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdMkdir(t *testing.T) {
	t.Parallel()
	one := func(p string, parents bool, at target) MkdirOptions {
		at.Path = p
		return MkdirOptions{target: at, Paths: []string{p}, Parents: parents}
	}
	parseVerb(t, NewCmdMkdir, []verbCase{
		{name: "one path", argv: []string{"sb-1", "work/out"}, want: one("work/out", false, target{ID: "sb-1"})},
		{name: "parents", argv: []string{"sb-1", "-p", "/tmp/a/b"}, want: one("/tmp/a/b", true, target{ID: "sb-1"})},
		{name: "long parents, user", argv: []string{"sandbox/sb-1", "x", "--parents", "-u", "root"}, want: one("x", true, target{ID: "sb-1", User: "root"})},
		{name: "several paths", argv: []string{"sb-1", "a", "b/c", "/tmp/d"},
			want: MkdirOptions{target: target{ID: "sb-1", Path: "a"}, Paths: []string{"a", "b/c", "/tmp/d"}}},
		{name: "no path", argv: []string{"sb-1"}, code: abxerr.Usage, err: "files mkdir needs ID PATH..."},
	})
	refuseVerb(t, "mkdir", append(refusedTargets("x"),
		verbCase{name: "an empty one of several", argv: []string{"sb-1", "a", ""}, code: abxerr.InvalidInput, err: "empty path"}))
}

func TestRunMkdir(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, "", "mkdir", s.id, "-p", "jobs/out")
		checkErr(t, err, "", "")
		wantOutput(t, io, "", "created "+"/home/user/jobs/out\n")
		if st, err := os.Stat(filepath.Join(s.home, "jobs", "out")); err != nil || !st.IsDir() {
			t.Errorf("no directory: %v", err)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		if e := s.entry(t, "mkdir", s.id, "made"); e.Type != "dir" || e.Path != "/home/user/made" {
			t.Errorf("entry %+v", e)
		}
	})
	t.Run("name prints nothing", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, output.Name, "mkdir", s.id, "named")
		checkErr(t, err, "", "")
		wantOutput(t, io, "", "")
	})
	t.Run("exists", func(t *testing.T) {
		t.Parallel()
		s.put(t, "there/x", "")
		_, err := s.run(t, false, "", "mkdir", s.id, "there")
		checkErr(t, err, abxerr.Rejected, "directory already exists")
	})
	// As mkdir: without -p a missing parent is an error, and nothing is
	// made; with -p the parents are made and an existing directory is
	// fine, a file is not.
	t.Run("missing parent", func(t *testing.T) {
		t.Parallel()
		_, err := s.run(t, false, "", "mkdir", s.id, "no-parent/child")
		checkErr(t, err, abxerr.NotFound, "cannot create no-parent/child: no-parent does not exist")
		if e := abxerr.From(err); e.Hint != "add -p to create the missing parents" {
			t.Errorf("hint %q", e.Hint)
		}
		if _, err := os.Stat(filepath.Join(s.home, "no-parent")); err == nil {
			t.Error("the parent was made")
		}
	})
	t.Run("parent is a file", func(t *testing.T) {
		t.Parallel()
		s.put(t, "plain.txt", "x")
		_, err := s.run(t, false, "", "mkdir", s.id, "plain.txt/child")
		checkErr(t, err, abxerr.Rejected, "cannot create plain.txt/child: plain.txt is not a directory")
	})
	t.Run("-p makes parents and takes existing directories", func(t *testing.T) {
		t.Parallel()
		s.put(t, "pre/x", "")
		io, err := s.run(t, false, "", "mkdir", s.id, "-p", "p1/p2/p3", "pre")
		checkErr(t, err, "", "")
		wantOutput(t, io, "", "created /home/user/p1/p2/p3\npre: already a directory\n")
		if st, err := os.Stat(filepath.Join(s.home, "p1", "p2", "p3")); err != nil || !st.IsDir() {
			t.Errorf("p1/p2/p3: %v", err)
		}
		s.put(t, "afile", "x")
		_, err = s.run(t, false, "", "mkdir", s.id, "-p", "afile")
		checkErr(t, err, abxerr.Rejected, "not a directory")
	})
	t.Run("several, as json", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, output.JSON, "mkdir", s.id, "m1", "m2")
		checkErr(t, err, "", "")
		var list []envd.Entry
		if err := json.Unmarshal(io.Out.Bytes(), &list); err != nil || len(list) != 2 || list[0].Path != "/home/user/m1" || list[1].Path != "/home/user/m2" {
			t.Errorf("stdout %q (%v)", io.Out, err)
		}
	})
	t.Run("stops at the first that fails", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, "", "mkdir", s.id, "s1", "gone/s2", "s3")
		checkErr(t, err, abxerr.NotFound, "gone does not exist")
		wantOutput(t, io, "", "created /home/user/s1\n")
		if _, err := os.Stat(filepath.Join(s.home, "s3")); err == nil {
			t.Error("s3 was made after a failure")
		}
	})
}
