//go:build unix

package files

import (
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

func TestNewCmdMv(t *testing.T) {
	t.Parallel()
	parseVerb(t, NewCmdMv, []verbCase{
		{name: "rename", argv: []string{"sb-1", "out.txt", "archive/out.txt"},
			want: MvOptions{target: target{ID: "sb-1", Path: "out.txt"}, Destination: "archive/out.txt"}},
		{name: "user", argv: []string{"-u", "root", "sandbox/sb-1", "a", "b"},
			want: MvOptions{target: target{ID: "sb-1", User: "root", Path: "a"}, Destination: "b"}},
		{name: "no destination", argv: []string{"sb-1", "a"}, code: abxerr.Usage, err: "files mv needs ID SOURCE DESTINATION"},
		{name: "four arguments", argv: []string{"sb-1", "a", "b", "c"}, code: abxerr.Usage, err: "got 4 arguments"},
	})
	refuseVerb(t, "mv", refusedTargets("a", "b"))
}

func TestRunMv(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "notes/a.txt", "a")
	s.put(t, "notes/b.txt", "b")
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, "", "mv", s.id, "notes/a.txt", "jobs/out/hi.txt")
		checkErr(t, err, "", "")
		wantOutput(t, io, "", "moved notes/a.txt to "+"/home/user/jobs/out/hi.txt\n")
		if got, _ := s.get(t, "jobs/out/hi.txt"); got != "a" {
			t.Errorf("moved file holds %q", got)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		if e := s.entry(t, "mv", s.id, "notes/b.txt", "b.txt"); e.Path != "/home/user/b.txt" || e.Size != 1 {
			t.Errorf("entry %+v", e)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		_, err := s.run(t, false, "", "mv", s.id, "nope", "x")
		checkErr(t, err, abxerr.NotFound, "no such file or directory")
	})
}
