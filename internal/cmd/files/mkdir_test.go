//go:build unix

package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdMkdir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		argv     []string
		want     MkdirOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "path", argv: []string{"sb-1", "work/out"}, want: MkdirOptions{ID: "sb-1", Path: "work/out"}},
		{name: "user", argv: []string{"sandbox/sb-1", "/tmp/x", "--user", "root"}, want: MkdirOptions{ID: "sb-1", User: "root", Path: "/tmp/x"}},
		{name: "no path", argv: []string{"sb-1"}, wantCode: abxerr.Usage, wantErr: "files mkdir needs ID PATH"},
		{name: "empty path", argv: []string{"sb-1", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"a/b", "x"}, wantCode: abxerr.InvalidInput, wantErr: "invalid sandbox ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *MkdirOptions
			cmd := NewCmdMkdir(f, func(_ context.Context, o *MkdirOptions) error { got = o; return nil })
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

func TestRunMkdir(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	mkdir := func(t *testing.T, format output.Format, path string) (cmdtest.Streams, error) {
		t.Helper()
		f, io := s.factory(t, false, format)
		return io, runMkdir(t.Context(), &MkdirOptions{Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: path})
	}
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		io, err := mkdir(t, "", "jobs/out")
		checkErr(t, err, "", "")
		if io.Out.Len() != 0 || io.ErrOut.String() != "created "+s.home+"/jobs/out\n" {
			t.Errorf("stdout %q, stderr %q", io.Out, io.ErrOut)
		}
		if st, err := os.Stat(filepath.Join(s.home, "jobs", "out")); err != nil || !st.IsDir() {
			t.Errorf("no directory: %v", err)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		io, err := mkdir(t, output.JSON, "made")
		checkErr(t, err, "", "")
		var e envd.Entry
		if err := json.Unmarshal(io.Out.Bytes(), &e); err != nil || e.Type != "dir" || e.Path != s.home+"/made" || io.ErrOut.Len() != 0 {
			t.Errorf("stdout %q (%v), stderr %q", io.Out, err, io.ErrOut)
		}
	})
	t.Run("name prints nothing", func(t *testing.T) {
		t.Parallel()
		io, err := mkdir(t, output.Name, "named")
		checkErr(t, err, "", "")
		if io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
			t.Errorf("stdout %q, stderr %q", io.Out, io.ErrOut)
		}
	})
	t.Run("exists", func(t *testing.T) {
		t.Parallel()
		s.put(t, "there/x", "")
		_, err := mkdir(t, "", "there")
		checkErr(t, err, abxerr.Rejected, "directory already exists")
	})
}
