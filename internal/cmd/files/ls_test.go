//go:build unix

package files

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdLs(t *testing.T) {
	t.Parallel()
	parseVerb(t, NewCmdLs, []verbCase{
		{name: "home", argv: []string{"sb-1"}, want: LsOptions{target: target{ID: "sb-1", Path: "."}, Depth: 1}},
		{name: "path and flags", argv: []string{"sb-1", "/tmp", "-l", "--depth", "2", "-u", "root"},
			want: LsOptions{target: target{ID: "sb-1", User: "root", Path: "/tmp"}, Long: true, Depth: 2}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1", "work"}, want: LsOptions{target: target{ID: "sb-1", Path: "work"}, Depth: 1}},
		{name: "no ID", argv: nil, code: abxerr.Usage, err: "files ls needs ID [PATH]"},
		{name: "three arguments", argv: []string{"sb-1", "a", "b"}, code: abxerr.Usage, err: "takes ID [PATH], got 3 arguments"},
		{name: "depth 16", argv: []string{"sb-1", "--depth", "16"}, want: LsOptions{target: target{ID: "sb-1", Path: "."}, Depth: 16}},
	})
	refuseVerb(t, "ls", append(append([]verbCase{
		// The depth is the operation's bound (1 to 16), refused before
		// anything is sent: 0 is no listing, and -1 must not reach the
		// wire, whose depth is unsigned (4294967295: the whole tree).
		{name: "depth 0", argv: []string{"sb-1", "--depth", "0"}, code: abxerr.InvalidInput, err: "invalid --depth 0: must be between 1 and 16"},
		{name: "depth -1", argv: []string{"sb-1", "--depth", "-1"}, code: abxerr.InvalidInput, err: "invalid --depth -1: must be between 1 and 16"},
		{name: "depth 17", argv: []string{"sb-1", "--depth", "17"}, code: abxerr.InvalidInput, err: "invalid --depth 17: must be between 1 and 16"},
	}, refusedTargets()...), refusedTargets("work")...))
	t.Run("bad depth", func(t *testing.T) {
		t.Parallel()
		f, _ := factorytest.NewFactory(false, nil, "")
		err := cmdtest.Exec(NewCmdFiles(f), "ls", "sb-1", "--depth", "x")
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
	ls := func(t *testing.T, format output.Format, argv ...string) (string, string) {
		t.Helper()
		io, err := s.run(t, false, format, append([]string{"ls", s.id}, argv...)...)
		checkErr(t, err, "", "")
		return io.Out.String(), io.ErrOut.String()
	}

	t.Run("table", func(t *testing.T) {
		t.Parallel()
		out, errOut := ls(t, "", "jobs/out")
		if !regexp.MustCompile(`^hi.txt\tfile\t12\t\d{4}-\d\d-\d\dT[0-9:]+Z\n$`).MatchString(out) || errOut != "" {
			t.Errorf("stdout %q, stderr %q", out, errOut)
		}
	})
	t.Run("long", func(t *testing.T) {
		t.Parallel()
		out, _ := ls(t, "", "jobs/out", "-l")
		if !regexp.MustCompile(`^hi.txt\tfile\t12\t\S+\t-rw-r--r--\t\S+\t\S+\t/home/user/jobs/out/hi.txt\n$`).MatchString(out) {
			t.Errorf("stdout %q", out)
		}
		wide, _ := ls(t, output.Wide, "jobs/out")
		if wide != out {
			t.Errorf("-o wide %q, want what -l prints, %q", wide, out)
		}
	})
	t.Run("depth names entries by path", func(t *testing.T) {
		t.Parallel()
		out, _ := ls(t, "", "jobs", "--depth", "2")
		if !strings.Contains(out, "/home/user/jobs/out/hi.txt\tfile\t12\t") || !strings.Contains(out, "/home/user/jobs/b.txt\tfile\t2\t") {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		out, errOut := ls(t, output.JSON, "jobs/out")
		var list []envd.Entry
		if err := json.Unmarshal([]byte(out), &list); err != nil || errOut != "" {
			t.Fatalf("stdout %q (%v), stderr %q", out, err, errOut)
		}
		if len(list) != 1 || list[0].Name != "hi.txt" || list[0].Type != "file" || list[0].Size != 12 ||
			list[0].Path != "/home/user/jobs/out/hi.txt" || list[0].Mode != 0o644 {
			t.Errorf("entries %+v", list)
		}
	})
	t.Run("name", func(t *testing.T) {
		t.Parallel()
		if out, _ := ls(t, output.Name, "jobs/out"); out != "/home/user/jobs/out/hi.txt\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("tty", func(t *testing.T) {
		t.Parallel()
		io, err := s.run(t, true, "", "ls", s.id, "jobs/out")
		checkErr(t, err, "", "")
		if !regexp.MustCompile(`^\S*NAME\S*\s+\S*TYPE\S*\s+\S*SIZE\S*\s+\S*MODIFIED`).MatchString(io.Out.String()) {
			t.Errorf("stdout %q, want a header", io.Out.String())
		}
	})
	// A file named on its own is listed as itself, as ls lists it: its
	// row, under the name it was given; for programs, an array of its one
	// entry.
	t.Run("a file", func(t *testing.T) {
		t.Parallel()
		out, errOut := ls(t, "", "jobs/b.txt")
		if !regexp.MustCompile(`^jobs/b.txt\tfile\t2\t\d{4}-\d\d-\d\dT[0-9:]+Z\n$`).MatchString(out) || errOut != "" {
			t.Errorf("stdout %q, stderr %q", out, errOut)
		}
		long, _ := ls(t, "", "jobs/b.txt", "-l", "--depth", "3")
		if !regexp.MustCompile(`^jobs/b.txt\tfile\t2\t\S+\t-rw-r--r--\t\S+\t\S+\t/home/user/jobs/b.txt\n$`).MatchString(long) {
			t.Errorf("-l: stdout %q", long)
		}
		out, _ = ls(t, output.JSON, "jobs/b.txt")
		var list []envd.Entry
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Name != "b.txt" ||
			list[0].Path != "/home/user/jobs/b.txt" || list[0].Type != "file" || list[0].Size != 2 {
			t.Errorf("stdout %q (%v)", out, err)
		}
		if out, _ := ls(t, output.Name, "jobs/b.txt"); out != "/home/user/jobs/b.txt\n" {
			t.Errorf("-o name: stdout %q", out)
		}
	})
	t.Run("below a file", func(t *testing.T) {
		t.Parallel()
		_, err := s.run(t, false, "", "ls", s.id, "jobs/b.txt/x")
		checkErr(t, err, abxerr.Rejected, "not a directory")
	})
}
