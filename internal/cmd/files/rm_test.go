//go:build unix

package files

import (
	"context"
	"reflect"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdRm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		argv     []string
		want     RmOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "path", argv: []string{"sb-1", "/tmp/scratch"}, want: RmOptions{ID: "sb-1", Path: "/tmp/scratch"}},
		{name: "user", argv: []string{"sandbox/sb-1", "x", "-u", "root"}, want: RmOptions{ID: "sb-1", User: "root", Path: "x"}},
		{name: "no path", argv: []string{"sb-1"}, wantCode: abxerr.Usage, wantErr: "files rm needs ID PATH"},
		{name: "empty path", argv: []string{"sb-1", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"a\tb", "x"}, wantCode: abxerr.InvalidInput, wantErr: "invalid sandbox ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *RmOptions
			cmd := NewCmdRm(f, func(_ context.Context, o *RmOptions) error { got = o; return nil })
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

func TestRunRm(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "jobs/out/hi.txt", "hi")
	s.put(t, "other.txt", "x")
	rm := func(t *testing.T, format output.Format, path string) cmdtest.Streams {
		t.Helper()
		f, io := s.factory(t, false, format)
		checkErr(t, runRm(t.Context(), &RmOptions{Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: path}), "", "")
		return io
	}
	t.Run("a tree", func(t *testing.T) {
		t.Parallel()
		io := rm(t, "", "jobs")
		if _, ok := s.get(t, "jobs/out/hi.txt"); ok || io.Out.Len() != 0 || io.ErrOut.String() != "removed jobs\n" {
			t.Errorf("still there: %v; stdout %q, stderr %q", ok, io.Out, io.ErrOut)
		}
	})
	t.Run("json prints nothing", func(t *testing.T) {
		t.Parallel()
		io := rm(t, output.JSON, "other.txt")
		if _, ok := s.get(t, "other.txt"); ok || io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
			t.Errorf("still there: %v; stdout %q, stderr %q", ok, io.Out, io.ErrOut)
		}
	})
	t.Run("missing succeeds", func(t *testing.T) {
		t.Parallel()
		rm(t, "", "never-was")
	})
}
