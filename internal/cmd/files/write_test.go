//go:build unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdWrite(t *testing.T) {
	t.Parallel()
	ptr := func(s string) *string { return &s }
	dir, from, missing := localFile(t)
	parseVerb(t, NewCmdWrite, append(pathCases("write", func(at target) any { return WriteOptions{target: at} }),
		verbCase{name: "from a file", argv: []string{"sb-1", "/tmp/data.bin", "--from", from},
			want: WriteOptions{target: target{ID: "sb-1", Path: "/tmp/data.bin"}, From: from}},
		verbCase{name: "stdin by dash", argv: []string{"sandbox/sb-1", "x", "-f", "-", "-u", "root"},
			want: WriteOptions{target: target{ID: "sb-1", User: "root", Path: "x"}, From: "-"}},
		verbCase{name: "from a missing file", argv: []string{"sb-1", "x", "--from", missing},
			code: abxerr.InvalidInput, err: "cannot read " + missing + ": no such file or directory"},
		verbCase{name: "from a directory", argv: []string{"sb-1", "x", "--from", dir}, code: abxerr.InvalidInput, err: dir + " is a directory"},
		verbCase{name: "mode", argv: []string{"sb-1", "run.sh", "--mode", "755"},
			want: WriteOptions{target: target{ID: "sb-1", Path: "run.sh"}, Mode: ptr("755")}},
		verbCase{name: "mode with a zero", argv: []string{"sb-1", "x", "--mode=0640", "--from", from},
			want: WriteOptions{target: target{ID: "sb-1", Path: "x"}, From: from, Mode: ptr("0640")}},
	))
	refuseVerb(t, "write", append(refusedTargets("x"),
		verbCase{name: "empty path from a file", argv: []string{"sb-1", "", "--from", from}, code: abxerr.InvalidInput, err: "empty path"},
		verbCase{name: "mode too big", argv: []string{"sb-1", "x", "--mode", "4755"}, code: abxerr.InvalidInput,
			err: `invalid --mode "4755": permission bits in octal, 0 to 0777`},
		verbCase{name: "mode in letters", argv: []string{"sb-1", "x", "--mode", "u+x"}, code: abxerr.InvalidInput, err: `invalid --mode "u+x"`},
		verbCase{name: "empty mode", argv: []string{"sb-1", "x", "--mode", ""}, code: abxerr.InvalidInput, err: `invalid --mode ""`},
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
		err, path, want string      // the error, or the file written and what it holds
		mode            fs.FileMode // and its mode, when not 0644
	}{
		{name: "stdin", stdin: "hello\n", argv: []string{"deep/er/greeting.txt"},
			stderr: "wrote deep/er/greeting.txt\n", path: "deep/er/greeting.txt", want: "hello\n"},
		{name: "from a file, json", format: output.JSON, argv: []string{"data.bin", "--from", from}, path: "data.bin", want: "a,b\n"},
		{name: "outside the sandbox's directories", stdin: "x", argv: []string{"/etc/passwd"}, code: abxerr.PermissionDenied, err: "/etc/passwd: permission denied"},
		{name: "a mode", stdin: "#!/bin/sh\n", argv: []string{"bin/run.sh", "--mode", "750"},
			stderr: "wrote bin/run.sh\n", path: "bin/run.sh", want: "#!/bin/sh\n", mode: 0o750},
		{name: "a mode, from a file", argv: []string{"data.csv", "--from", from, "--mode", "600"},
			stderr: "wrote data.csv\n", path: "data.csv", want: "a,b\n", mode: 0o600},
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
			want := tc.mode
			if want == 0 {
				want = 0o644
			}
			if st, err := os.Stat(filepath.Join(s.home, filepath.FromSlash(tc.path))); err != nil || st.Mode().Perm() != want {
				t.Errorf("remote mode %v (%v), want %v", st.Mode(), err, want)
			}
		})
	}
}

// A write keeps the mode of the file it replaces, as the shell's > does.
func TestWriteKeepsTheMode(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "run.sh", "old")
	p := filepath.Join(s.home, "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	f, io := s.factory(t, false, "")
	io.In.WriteString("new")
	checkErr(t, cmdtest.Exec(NewCmdFiles(f), "write", s.id, "run.sh"), "", "")
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v (%v), want 0755", st.Mode(), err)
	}
	if got, _ := s.get(t, "run.sh"); got != "new" {
		t.Errorf("remote %q", got)
	}
}

// On a terminal, which gives no end of its own, write says that it reads
// until Ctrl-D; piped, it says nothing of it.
func TestWriteFromATerminalSaysHowItEnds(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	for _, tty := range []bool{true, false} {
		f, io := s.factory(t, tty, "")
		io.In.WriteString("typed\n")
		checkErr(t, cmdtest.Exec(NewCmdFiles(f), "write", s.id, "typed.txt"), "", "")
		note := "reading stdin into " + s.id + ":typed.txt until Ctrl-D (or give --from FILE)\n"
		if got := strings.Contains(io.ErrOut.String(), note); got != tty {
			t.Errorf("tty %v: stderr %q", tty, io.ErrOut)
		}
		// With --from, stdin is not read: nothing to say.
		_, from, _ := localFile(t)
		f, io = s.factory(t, tty, "")
		checkErr(t, cmdtest.Exec(NewCmdFiles(f), "write", s.id, "x.csv", "--from", from), "", "")
		if strings.Contains(io.ErrOut.String(), "Ctrl-D") {
			t.Errorf("tty %v, --from: stderr %q", tty, io.ErrOut)
		}
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
