//go:build unix

package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

func TestNewCmdRead(t *testing.T) {
	t.Parallel()
	dir, _, out := localFile(t)
	parseVerb(t, NewCmdRead, append(pathCases("read", func(at target) any { return ReadOptions{target: at} }),
		verbCase{name: "to a file", argv: []string{"sb-1", "results.csv", "--out", out}, want: ReadOptions{target: target{ID: "sb-1", Path: "results.csv"}, Out: out}},
		verbCase{name: "to stdout by dash", argv: []string{"-u", "root", "sb-1", "x", "-O", "-"},
			want: ReadOptions{target: target{ID: "sb-1", User: "root", Path: "x"}, Out: "-"}},
		verbCase{name: "out in a missing directory", argv: []string{"sb-1", "x", "--out", filepath.Join(dir, "no", "x.txt")},
			code: abxerr.InvalidInput, err: "cannot write " + filepath.Join(dir, "no", "x.txt") + ": no such file or directory"},
		verbCase{name: "out is a directory", argv: []string{"sb-1", "x", "--out", dir},
			code: abxerr.InvalidInput, err: "cannot write " + dir + ": is a directory"},
	))
	refuseVerb(t, "read", append(refusedTargets("x"),
		verbCase{name: "to a file, empty path", argv: []string{"sb-1", "", "--out", out}, code: abxerr.InvalidInput, err: "empty path"}))
}

func TestRunRead(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	body := "line one\n\x00binary\xff\n"
	s.put(t, "notes/hello.txt", body)
	text := "héllo\ttabs\r\nand lines\n"
	s.put(t, "notes/text.txt", text)
	s.put(t, "notes/title.txt", "looks like text \x1b]0;pwned\a until here\n")
	s.put(t, "notes/late.bin", strings.Repeat("text\n", 4000)+"\x00")
	t.Run("text to a terminal", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, true, "", "read", s.id, "notes/text.txt")
		checkErr(t, err, "", "")
		wantOutput(t, io, text, "")
	})
	// As curl: what is not text is not written to a terminal unless asked
	// for; nothing of it reaches the screen.
	for _, p := range []string{"notes/hello.txt", "notes/title.txt"} {
		t.Run("not text to a terminal: "+p, func(t *testing.T) {
			t.Parallel()
			io, err := s.run(t, true, "", "read", s.id, p)
			checkErr(t, err, abxerr.InvalidInput, s.id+":"+p+" is not text")
			if e := abxerr.From(err); e.Hint != "save it with --out FILE, or add --out - to print it anyway" {
				t.Errorf("hint %q", e.Hint)
			}
			wantOutput(t, io, "", "")
		})
	}
	t.Run("not text after the first bytes", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, true, "", "read", s.id, "notes/late.bin")
		checkErr(t, err, abxerr.InvalidInput, "is not text")
		if strings.Contains(io.Out.String(), "\x00") || !strings.HasPrefix(strings.Repeat("text\n", 4000), io.Out.String()) {
			t.Errorf("stdout ends %q", io.Out.String()[max(0, io.Out.Len()-20):])
		}
	})
	t.Run("asked for, or piped", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, true, "", "read", s.id, "notes/hello.txt", "--out", "-")
		checkErr(t, err, "", "")
		wantOutput(t, io, body, "")
		io, err = s.run(t, false, "", "read", s.id, "notes/hello.txt")
		checkErr(t, err, "", "")
		wantOutput(t, io, body, "")
	})
	t.Run("out", func(t *testing.T) {
		t.Parallel()
		local := filepath.Join(t.TempDir(), "back.txt")
		io, err := s.run(t, true, "", "read", s.id, "notes/hello.txt", "--out", local)
		checkErr(t, err, "", "")
		wantOutput(t, io, "", "")
		if got, _ := os.ReadFile(local); string(got) != body {
			t.Errorf("file %q", got)
		}
	})
	t.Run("out leaves nothing on error", func(t *testing.T) {
		t.Parallel()
		dir, kept, partial := localFile(t)
		_, err := s.run(t, true, "", "read", s.id, "missing.bin", "--out", partial)
		checkErr(t, err, abxerr.NotFound, "does not exist (HTTP 404)")
		_, err = s.run(t, true, "", "read", s.id, "notes", "--out", kept)
		checkErr(t, err, abxerr.Rejected, "is a directory (HTTP 400)")
		transfertest.WantTree(t, dir, map[string]string{"data": "a,b\n"})
	})
}
