//go:build unix

package files

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdMkdir(t *testing.T) {
	t.Parallel()
	parseVerb(t, NewCmdMkdir, pathCases("mkdir", func(at target) any { return MkdirOptions{target: at} }))
}

func TestRunMkdir(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, "", "mkdir", s.id, "jobs/out")
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
}
