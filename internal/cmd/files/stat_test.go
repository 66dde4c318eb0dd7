//go:build unix

package files

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdStat(t *testing.T) {
	t.Parallel()
	parseVerb(t, NewCmdStat, pathCases("stat", func(at target) any { return StatOptions{target: at} }))
	refuseVerb(t, "stat", refusedTargets("x"))
}

func TestRunStat(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "up/big.bin", "0123456789")
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, "", "stat", s.id, "up/big.bin")
		checkErr(t, err, "", "")
		if !regexp.MustCompile(`^big.bin\tfile\t10\t\S+\t-rw-r--r--\t\S+\t\S+\t` + `/home/user/up/big.bin\n$`).MatchString(io.Out.String()) {
			t.Errorf("stdout %q", io.Out)
		}
	})
	t.Run("json is one entry", func(t *testing.T) {
		t.Parallel()
		if e := s.entry(t, "stat", s.id, "up/big.bin"); e.Size != 10 || e.Type != "file" || e.Path != "/home/user/up/big.bin" {
			t.Errorf("entry %+v", e)
		}
	})
	t.Run("a directory's mode is its permission bits", func(t *testing.T) {
		t.Parallel()
		if err := os.Chmod(filepath.Join(s.home, "up"), 0o750); err != nil {
			t.Fatal(err)
		}
		if e := s.entry(t, "stat", s.id, "up"); e.Mode != 0o750 || e.Type != "dir" {
			t.Errorf("mode %d (%o), type %s; want 488 (0750), dir", e.Mode, e.Mode, e.Type)
		}
	})
	t.Run("name", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, output.Name, "stat", s.id, "up")
		checkErr(t, err, "", "")
		if io.Out.String() != "/home/user/up\n" {
			t.Errorf("stdout %q", io.Out)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, false, "", "stat", s.id, "nope.txt")
		checkErr(t, err, abxerr.NotFound, "no such file or directory")
		if io.Out.Len() != 0 {
			t.Errorf("stdout %q", io.Out)
		}
	})
}
