//go:build unix

package files

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		argv     []string
		want     StatOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "path", argv: []string{"sb-1", "/etc/hostname"}, want: StatOptions{ID: "sb-1", Path: "/etc/hostname"}},
		{name: "user and sandbox/ID", argv: []string{"-u", "root", "sandbox/sb-1", "x"}, want: StatOptions{ID: "sb-1", User: "root", Path: "x"}},
		{name: "no path", argv: []string{"sb-1"}, wantCode: abxerr.Usage, wantErr: "files stat needs ID PATH"},
		{name: "two paths", argv: []string{"sb-1", "a", "b"}, wantCode: abxerr.Usage, wantErr: "takes ID PATH, got 3 arguments"},
		{name: "empty path", argv: []string{"sb-1", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"..", "x"}, wantCode: abxerr.InvalidInput, wantErr: "invalid sandbox ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *StatOptions
			cmd := NewCmdStat(f, func(_ context.Context, o *StatOptions) error { got = o; return nil })
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

func TestRunStat(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "up/big.bin", "0123456789")
	stat := func(t *testing.T, format output.Format, path string) (string, error) {
		t.Helper()
		f, io := s.factory(t, false, format)
		err := runStat(t.Context(), &StatOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: path})
		return io.Out.String(), err
	}
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		out, err := stat(t, "", "up/big.bin")
		checkErr(t, err, "", "")
		if !regexp.MustCompile(`^big.bin\tfile\t10\t\S+\t-rw-r--r--\t\S+\t\S+\t` + regexp.QuoteMeta(s.home) + `/up/big.bin\n$`).MatchString(out) {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("json is one entry", func(t *testing.T) {
		t.Parallel()
		out, err := stat(t, output.JSON, "up/big.bin")
		checkErr(t, err, "", "")
		var e envd.Entry
		if err := json.Unmarshal([]byte(out), &e); err != nil || e.Size != 10 || e.Type != "file" || e.Path != s.home+"/up/big.bin" {
			t.Errorf("stdout %q (%v)", out, err)
		}
	})
	t.Run("name", func(t *testing.T) {
		t.Parallel()
		out, err := stat(t, output.Name, "up")
		checkErr(t, err, "", "")
		if out != s.home+"/up\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		out, err := stat(t, "", "nope.txt")
		checkErr(t, err, abxerr.NotFound, "no such file or directory")
		if out != "" {
			t.Errorf("stdout %q", out)
		}
	})
}
