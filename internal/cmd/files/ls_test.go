//go:build unix

package files

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		argv     []string
		want     LsOptions
		wantCode abxerr.Code
		wantErr  string
	}{
		{name: "home", argv: []string{"sb-1"}, want: LsOptions{ID: "sb-1", Path: ".", Depth: 1}},
		{name: "path and flags", argv: []string{"sb-1", "/tmp", "-l", "--depth", "2", "-u", "root"},
			want: LsOptions{ID: "sb-1", User: "root", Path: "/tmp", Long: true, Depth: 2}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1", "work"}, want: LsOptions{ID: "sb-1", Path: "work", Depth: 1}},
		{name: "no ID", argv: nil, wantCode: abxerr.Usage, wantErr: "files ls needs ID [PATH]"},
		{name: "three arguments", argv: []string{"sb-1", "a", "b"}, wantCode: abxerr.Usage, wantErr: "takes ID [PATH], got 3 arguments"},
		{name: "empty path", argv: []string{"sb-1", ""}, wantCode: abxerr.InvalidInput, wantErr: "empty path"},
		{name: "bad ID", argv: []string{"a/b"}, wantCode: abxerr.InvalidInput, wantErr: `invalid sandbox ID "a/b"`},
		{name: "blank ID", argv: []string{" "}, wantCode: abxerr.InvalidInput, wantErr: "invalid sandbox ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *LsOptions
			cmd := NewCmdLs(f, func(_ context.Context, o *LsOptions) error { got = o; return nil })
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
	t.Run("bad depth", func(t *testing.T) {
		t.Parallel()
		f, _ := cmdtest.NewFactory(false, nil, "")
		err := execVerb(NewCmdLs(f, nil), "sb-1", "--depth", "x")
		if err == nil || !strings.Contains(err.Error(), "invalid argument") {
			t.Errorf("error %v", err)
		}
	})
}

func TestRunLs(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "jobs/out/hi.txt", "hello files\n")
	s.put(t, "jobs/b.txt", "b\n")
	ls := func(t *testing.T, format output.Format, path string, long bool, depth int) (string, string) {
		t.Helper()
		f, io := s.factory(t, false, format)
		opts := &LsOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: path, Long: long, Depth: depth}
		if err := runLs(t.Context(), opts); err != nil {
			t.Fatal(err)
		}
		return io.Out.String(), io.ErrOut.String()
	}

	t.Run("table", func(t *testing.T) {
		t.Parallel()
		out, errOut := ls(t, "", "jobs/out", false, 1)
		if !regexp.MustCompile(`^hi.txt\tfile\t12\t\d{4}-\d\d-\d\dT[0-9:]+Z\n$`).MatchString(out) || errOut != "" {
			t.Errorf("stdout %q, stderr %q", out, errOut)
		}
	})
	t.Run("long", func(t *testing.T) {
		t.Parallel()
		out, _ := ls(t, "", "jobs/out", true, 1)
		if !regexp.MustCompile(`^hi.txt\tfile\t12\t\S+\t-rw-r--r--\t\S+\t\S+\t/\S+/home/user/jobs/out/hi.txt\n$`).MatchString(out) {
			t.Errorf("stdout %q", out)
		}
		wide, _ := ls(t, output.Wide, "jobs/out", false, 1)
		if wide != out {
			t.Errorf("-o wide %q, want what -l prints, %q", wide, out)
		}
	})
	t.Run("depth names entries by path", func(t *testing.T) {
		t.Parallel()
		out, _ := ls(t, "", "jobs", false, 2)
		if !strings.Contains(out, s.home+"/jobs/out/hi.txt\tfile\t12\t") || !strings.Contains(out, s.home+"/jobs/b.txt\tfile\t2\t") {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		out, errOut := ls(t, output.JSON, "jobs/out", false, 1)
		var list []envd.Entry
		if err := json.Unmarshal([]byte(out), &list); err != nil || errOut != "" {
			t.Fatalf("stdout %q (%v), stderr %q", out, err, errOut)
		}
		if len(list) != 1 || list[0].Name != "hi.txt" || list[0].Type != "file" || list[0].Size != 12 ||
			list[0].Path != s.home+"/jobs/out/hi.txt" || list[0].Mode != 0o644 {
			t.Errorf("entries %+v", list)
		}
	})
	t.Run("name", func(t *testing.T) {
		t.Parallel()
		out, _ := ls(t, output.Name, "jobs/out", false, 1)
		if out != s.home+"/jobs/out/hi.txt\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("tty", func(t *testing.T) {
		t.Parallel()
		f, io := s.factory(t, true, "")
		opts := &LsOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: "jobs/out", Depth: 1}
		if err := runLs(t.Context(), opts); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^\S*NAME\S*\s+\S*TYPE\S*\s+\S*SIZE\S*\s+\S*MODIFIED`).MatchString(io.Out.String()) {
			t.Errorf("stdout %q, want a header", io.Out.String())
		}
	})
	t.Run("not a directory", func(t *testing.T) {
		t.Parallel()
		f, _ := s.factory(t, false, "")
		opts := &LsOptions{IO: f.IO, Printer: f.Printer, Envd: f.EnvdClient, ID: s.id, Path: "jobs/b.txt", Depth: 1}
		checkErr(t, runLs(t.Context(), opts), abxerr.Rejected, "not a directory")
	})
}
