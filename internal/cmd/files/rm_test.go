//go:build unix

package files

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdRm(t *testing.T) {
	t.Parallel()
	parseVerb(t, NewCmdRm, pathCases("rm", func(at target) any { return RmOptions{target: at} }))
	refuseVerb(t, "rm", refusedTargets("x"))
}

func TestRunRm(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "jobs/out/hi.txt", "hi")
	s.put(t, "other.txt", "x")
	for _, tc := range []struct {
		name, path, stderr string
		format             output.Format
	}{
		{name: "a tree", path: "jobs", stderr: "removed jobs\n"},
		{name: "json prints nothing", path: "other.txt", format: output.JSON},
		// As rm -f: success, and the note says what happened.
		{name: "missing succeeds", path: "never-was", stderr: "never-was: not there, nothing removed\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			io, err := s.run(t, false, tc.format, "rm", s.id, tc.path)
			checkErr(t, err, "", "")
			wantOutput(t, io, "", tc.stderr)
			if _, err := os.Stat(filepath.Join(s.home, tc.path)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is still there: %v", tc.path, err)
			}
		})
	}
}
