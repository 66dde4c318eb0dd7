//go:build unix

package files

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdWrite(t *testing.T) {
	t.Parallel()
	dir, from, missing := localFile(t)
	parseVerb(t, NewCmdWrite, append(pathCases("write", func(at target) any { return WriteOptions{target: at} }),
		verbCase{name: "from a file", argv: []string{"sb-1", "/tmp/data.bin", "--from", from},
			want: WriteOptions{target: target{ID: "sb-1", Path: "/tmp/data.bin"}, From: from}},
		verbCase{name: "stdin by dash", argv: []string{"sandbox/sb-1", "x", "-f", "-", "-u", "root"},
			want: WriteOptions{target: target{ID: "sb-1", User: "root", Path: "x"}, From: "-"}},
		verbCase{name: "empty path from a file", argv: []string{"sb-1", "", "--from", from}, code: abxerr.InvalidInput, err: "empty path"},
		verbCase{name: "from a missing file", argv: []string{"sb-1", "x", "--from", missing},
			code: abxerr.InvalidInput, err: "cannot read " + missing + ": no such file or directory"},
		verbCase{name: "from a directory", argv: []string{"sb-1", "x", "--from", dir}, code: abxerr.InvalidInput, err: dir + " is a directory"},
	))
}

func TestRunWrite(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	_, from, _ := localFile(t)
	for _, tc := range []struct {
		name, stdin     string
		format          output.Format
		argv            []string // after write ID
		stderr          string
		code            abxerr.Code
		err, path, want string // the error, or the file written and what it holds
	}{
		{name: "stdin", stdin: "hello\n", argv: []string{"deep/er/greeting.txt"},
			stderr: "wrote deep/er/greeting.txt\n", path: "deep/er/greeting.txt", want: "hello\n"},
		{name: "from a file, json", format: output.JSON, argv: []string{"data.bin", "--from", from}, path: "data.bin", want: "a,b\n"},
		{name: "outside the sandbox's directories", stdin: "x", argv: []string{"/etc/passwd"}, code: abxerr.PermissionDenied, err: "/etc/passwd: permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, io := s.factory(t, false, tc.format)
			io.In.WriteString(tc.stdin)
			err := cmdtest.Exec(NewCmdFiles(f), append([]string{"write", s.id}, tc.argv...)...)
			checkErr(t, err, tc.code, tc.err)
			if e := abxerr.From(err); tc.code == abxerr.PermissionDenied && !strings.Contains(e.Hint, "--user root") {
				t.Errorf("hint %q", e.Hint)
			}
			wantOutput(t, io, "", tc.stderr)
			if tc.path == "" {
				return
			}
			if got, _ := s.get(t, tc.path); got != tc.want {
				t.Errorf("remote %q", got)
			}
		})
	}
}

// Before, a missing --from was found only after the sandbox was read.
func TestWriteFromAMissingFileSendsNothing(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	io, err := s.run(t, false, "", "write", s.id, "x", "--from", filepath.Join(t.TempDir(), "missing"))
	checkErr(t, err, abxerr.InvalidInput, "no such file or directory")
	if n := len(s.srv.Requests()); n != 0 || io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
		t.Errorf("the server got %d requests; stdout %q, stderr %q", n, io.Out, io.ErrOut)
	}
	if _, ok := s.get(t, "x"); ok {
		t.Error("x was written")
	}
}
