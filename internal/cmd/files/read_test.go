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
)

func TestNewCmdRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "results.csv")
	tests := []struct {
		name     string
		argv     []string
		want     ReadOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "to stdout", argv: []string{"sb-1", "/etc/os-release"}, want: ReadOptions{ID: "sb-1", Path: "/etc/os-release"}},
		{name: "to a file", argv: []string{"sb-1", "results.csv", "--out", out}, want: ReadOptions{ID: "sb-1", Path: "results.csv", Out: out}},
		{name: "to stdout by dash", argv: []string{"-u", "root", "sb-1", "x", "-O", "-"}, want: ReadOptions{ID: "sb-1", User: "root", Path: "x", Out: "-"}},
		{name: "no path", argv: []string{"sb-1"}, wantCode: abxerr.Usage, wantErr: "files read needs ID PATH"},
		{name: "empty path", argv: []string{"sb-1", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"sb 1", "x"}, wantCode: abxerr.InvalidInput, wantErr: "invalid sandbox ID"},
		{name: "out in a missing directory", argv: []string{"sb-1", "x", "--out", filepath.Join(dir, "no", "x.txt")},
			wantCode: abxerr.InvalidInput, wantErr: "cannot write " + filepath.Join(dir, "no", "x.txt") + ": no such file or directory"},
		{name: "out is a directory", argv: []string{"sb-1", "x", "--out", dir},
			wantCode: abxerr.InvalidInput, wantErr: "cannot write " + dir + ": is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *ReadOptions
			cmd := NewCmdRead(f, func(_ context.Context, o *ReadOptions) error { got = o; return nil })
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

func TestRunRead(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	body := "line one\n\x00binary\xff\n"
	s.put(t, "notes/hello.txt", body)
	read := func(t *testing.T, path, out string) (cmdtest.Streams, error) {
		t.Helper()
		f, io := s.factory(t, true, "")
		err := runRead(t.Context(), &ReadOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: path, Out: out})
		return io, err
	}
	t.Run("stdout", func(t *testing.T) {
		t.Parallel()
		io, err := read(t, "notes/hello.txt", "")
		checkErr(t, err, "", "")
		if io.Out.String() != body || io.ErrOut.String() != "" {
			t.Errorf("stdout %q, stderr %q", io.Out, io.ErrOut)
		}
	})
	t.Run("out", func(t *testing.T) {
		t.Parallel()
		local := filepath.Join(t.TempDir(), "back.txt")
		io, err := read(t, "notes/hello.txt", local)
		checkErr(t, err, "", "")
		if got, _ := os.ReadFile(local); string(got) != body || io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
			t.Errorf("file %q, stdout %q, stderr %q", got, io.Out, io.ErrOut)
		}
	})
	t.Run("out leaves nothing on error", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		kept := filepath.Join(dir, "kept.txt")
		if err := os.WriteFile(kept, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := read(t, "missing.bin", filepath.Join(dir, "partial.bin"))
		checkErr(t, err, abxerr.NotFound, "does not exist (HTTP 404)")
		_, err = read(t, "notes", kept)
		checkErr(t, err, abxerr.Rejected, "is a directory (HTTP 400)")
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != "kept.txt" {
			t.Errorf("the directory holds %v, want kept.txt alone", entries)
		}
		if got, _ := os.ReadFile(kept); string(got) != "old" {
			t.Errorf("kept.txt became %q", got)
		}
	})
}
