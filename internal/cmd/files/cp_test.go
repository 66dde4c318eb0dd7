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

func TestNewCmdCp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(file, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.csv")
	tests := []struct {
		name     string
		argv     []string
		want     CpOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "up", argv: []string{file, "sb-1:/tmp/data.csv"}, want: CpOptions{ID: "sb-1", Remote: "/tmp/data.csv", Local: file}},
		{name: "down", argv: []string{"sb-1:/tmp/results", "./results", "-r"},
			want: CpOptions{ID: "sb-1", Download: true, Remote: "/tmp/results", Local: "./results", Recursive: true}},
		{name: "sandbox/ID and user", argv: []string{"-u", "root", "sandbox/sb-1:x", "/tmp/x"},
			want: CpOptions{ID: "sb-1", User: "root", Download: true, Remote: "x", Local: "/tmp/x"}},
		{name: "a directory up with -r", argv: []string{dir, "sb-1:up", "-r"}, want: CpOptions{ID: "sb-1", Remote: "up", Local: dir, Recursive: true}},
		{name: "local colon", argv: []string{"sb-1:a:b", "./a:b"}, want: CpOptions{ID: "sb-1", Download: true, Remote: "a:b", Local: "./a:b"}},
		{name: "nothing", argv: nil, wantCode: abxerr.Usage, wantErr: "files cp needs SRC DST"},
		{name: "three", argv: []string{file, "sb-1:a", "sb-1:b"}, wantCode: abxerr.Usage, wantErr: "takes SRC DST, got 3 arguments"},
		{name: "two local", argv: []string{file, "./other.csv"}, wantCode: abxerr.Usage, wantErr: "one side of cp must be ID:PATH and the other a local path"},
		{name: "two remote", argv: []string{"sb-1:a", "sb-2:b"}, wantCode: abxerr.Usage, wantErr: "one side of cp must be ID:PATH"},
		{name: "empty remote path", argv: []string{file, "sb-1:"}, wantCode: abxerr.InvalidInput, wantErr: `empty path in "` + file + `" or "sb-1:"`},
		{name: "empty local path", argv: []string{"sb-1:x", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path in"},
		{name: "empty ID", argv: []string{":x", "./x"}, wantCode: abxerr.InvalidInput, wantErr: `invalid sandbox ID ""`},
		{name: "bad ID", argv: []string{"a b:x", "./x"}, wantCode: abxerr.InvalidInput, wantErr: `invalid sandbox ID "a b"`},
		{name: "missing source", argv: []string{missing, "sb-1:x"}, wantCode: abxerr.InvalidInput,
			wantErr: "cannot read " + missing + ": no such file or directory"},
		{name: "a directory up without -r", argv: []string{dir, "sb-1:up"}, wantCode: abxerr.InvalidInput, wantErr: dir + " is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *CpOptions
			cmd := NewCmdCp(f, func(_ context.Context, o *CpOptions) error { got = o; return nil })
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
