//go:build unix

package files

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(from, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.bin")
	tests := []struct {
		name     string
		argv     []string
		want     WriteOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "stdin", argv: []string{"sb-1", "greeting.txt"}, want: WriteOptions{ID: "sb-1", Path: "greeting.txt"}},
		{name: "from a file", argv: []string{"sb-1", "/tmp/data.bin", "--from", from}, want: WriteOptions{ID: "sb-1", Path: "/tmp/data.bin", From: from}},
		{name: "stdin by dash", argv: []string{"sandbox/sb-1", "x", "-f", "-", "-u", "root"}, want: WriteOptions{ID: "sb-1", User: "root", Path: "x", From: "-"}},
		{name: "no path", argv: []string{"sb-1"}, wantCode: abxerr.Usage, wantErr: "files write needs ID PATH"},
		{name: "empty path", argv: []string{"sb-1", "", "--from", from}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"sandbox/", "x"}, wantCode: abxerr.InvalidInput, wantErr: `invalid sandbox ID ""`},
		{name: "from a missing file", argv: []string{"sb-1", "x", "--from", missing},
			wantCode: abxerr.InvalidInput, wantErr: "cannot read " + missing + ": no such file or directory"},
		{name: "from a directory", argv: []string{"sb-1", "x", "--from", dir}, wantCode: abxerr.InvalidInput, wantErr: dir + " is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *WriteOptions
			cmd := NewCmdWrite(f, func(_ context.Context, o *WriteOptions) error { got = o; return nil })
			if !checkErr(t, execVerb(cmd, tt.argv...), tt.wantCode, tt.wantErr) {
				if got != nil {
					t.Error("runF was called")
				}
				return
			}
			got.IO, got.Printer, got.Envd = nil, nil, nil
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestRunWrite(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		f, io := s.factory(t, false, "")
		io.In.WriteString("hello\n")
		err := runWrite(t.Context(), &WriteOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: "deep/er/greeting.txt"})
		checkErr(t, err, "", "")
		if got, _ := s.get(t, "deep/er/greeting.txt"); got != "hello\n" || io.Out.Len() != 0 || io.ErrOut.String() != "wrote deep/er/greeting.txt\n" {
			t.Errorf("remote %q, stdout %q, stderr %q", got, io.Out, io.ErrOut)
		}
	})
	t.Run("from a file, json", func(t *testing.T) {
		t.Parallel()
		local := filepath.Join(t.TempDir(), "data.bin")
		if err := os.WriteFile(local, []byte("\x00\x01data"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, io := s.factory(t, false, output.JSON)
		err := runWrite(t.Context(), &WriteOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: "data.bin", From: local})
		checkErr(t, err, "", "")
		if got, _ := s.get(t, "data.bin"); got != "\x00\x01data" || io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
			t.Errorf("remote %q, stdout %q, stderr %q", got, io.Out, io.ErrOut)
		}
	})
	t.Run("outside the sandbox", func(t *testing.T) {
		t.Parallel()
		f, io := s.factory(t, false, "")
		io.In.WriteString("x")
		err := runWrite(t.Context(), &WriteOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: "/etc/passwd"})
		checkErr(t, err, abxerr.Forbidden, "is outside the sandbox directory")
		if io.ErrOut.Len() != 0 {
			t.Errorf("stderr %q", io.ErrOut)
		}
	})
}

// Before, a missing --from was found only after the sandbox was read.
func TestWriteFromAMissingFileSendsNothing(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	f, io := s.factory(t, false, "")
	err := execVerb(NewCmdWrite(f, nil), s.id, "x", "--from", filepath.Join(t.TempDir(), "missing"))
	checkErr(t, err, abxerr.InvalidInput, "no such file or directory")
	if n := len(s.srv.Requests()); n != 0 || io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
		t.Errorf("the server got %d requests; stdout %q, stderr %q", n, io.Out, io.ErrOut)
	}
	if _, ok := s.get(t, "x"); ok {
		t.Error("x was written")
	}
}
