//go:build unix

package files

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdMv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		argv     []string
		want     MvOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "rename", argv: []string{"sb-1", "out.txt", "archive/out.txt"}, want: MvOptions{ID: "sb-1", Source: "out.txt", Destination: "archive/out.txt"}},
		{name: "user", argv: []string{"-u", "root", "sandbox/sb-1", "a", "b"}, want: MvOptions{ID: "sb-1", User: "root", Source: "a", Destination: "b"}},
		{name: "no destination", argv: []string{"sb-1", "a"}, wantCode: abxerr.Usage, wantErr: "files mv needs ID SOURCE DESTINATION"},
		{name: "four arguments", argv: []string{"sb-1", "a", "b", "c"}, wantCode: abxerr.Usage, wantErr: "got 4 arguments"},
		{name: "empty source", argv: []string{"sb-1", "", "b"}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "empty destination", argv: []string{"sb-1", "a", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"", "a", "b"}, wantCode: abxerr.InvalidInput, wantErr: "invalid sandbox ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *MvOptions
			cmd := NewCmdMv(f, func(_ context.Context, o *MvOptions) error { got = o; return nil })
			if !checkErr(t, execVerb(cmd, tt.argv...), tt.wantCode, tt.wantErr) {
				if got != nil {
					t.Error("runF was called")
				}
				return
			}
			got.Printer, got.Envd = nil, nil
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestRunMv(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "notes/a.txt", "a")
	s.put(t, "notes/b.txt", "b")
	mv := func(t *testing.T, format output.Format, src, dst string) (cmdtest.Streams, error) {
		t.Helper()
		f, io := s.factory(t, false, format)
		return io, runMv(t.Context(), &MvOptions{Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Source: src, Destination: dst})
	}
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		io, err := mv(t, "", "notes/a.txt", "jobs/out/hi.txt")
		checkErr(t, err, "", "")
		if io.Out.Len() != 0 || io.ErrOut.String() != "moved notes/a.txt to "+s.home+"/jobs/out/hi.txt\n" {
			t.Errorf("stdout %q, stderr %q", io.Out, io.ErrOut)
		}
		if got, _ := s.get(t, "jobs/out/hi.txt"); got != "a" {
			t.Errorf("moved file holds %q", got)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		io, err := mv(t, output.JSON, "notes/b.txt", "b.txt")
		checkErr(t, err, "", "")
		var e envd.Entry
		if err := json.Unmarshal(io.Out.Bytes(), &e); err != nil || e.Path != s.home+"/b.txt" || e.Size != 1 || io.ErrOut.Len() != 0 {
			t.Errorf("stdout %q (%v), stderr %q", io.Out, err, io.ErrOut)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		_, err := mv(t, "", "nope", "x")
		checkErr(t, err, abxerr.NotFound, "no such file or directory")
	})
}
