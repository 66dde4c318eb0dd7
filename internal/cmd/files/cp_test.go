//go:build unix

package files

import (
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

func TestNewCmdCp(t *testing.T) {
	t.Parallel()
	dir, file, missing := localFile(t)
	parseVerb(t, NewCmdCp, []verbCase{
		{name: "up", argv: []string{file, "sb-1:/tmp/data.csv"}, want: CpOptions{target: target{ID: "sb-1", Path: "/tmp/data.csv"}, Local: file}},
		{name: "down", argv: []string{"sb-1:/tmp/results", "./results", "-r"},
			want: CpOptions{target: target{ID: "sb-1", Path: "/tmp/results"}, Download: true, Local: "./results", Recursive: true}},
		{name: "sandbox/ID and user", argv: []string{"-u", "root", "sandbox/sb-1:x", "/tmp/x"},
			want: CpOptions{target: target{ID: "sb-1", User: "root", Path: "x"}, Download: true, Local: "/tmp/x"}},
		{name: "a directory up with -r", argv: []string{dir, "sb-1:up", "-r"},
			want: CpOptions{target: target{ID: "sb-1", Path: "up"}, Local: dir, Recursive: true}},
		{name: "local colon", argv: []string{"sb-1:a:b", "./a:b"}, want: CpOptions{target: target{ID: "sb-1", Path: "a:b"}, Download: true, Local: "./a:b"}},
		{name: "nothing", argv: nil, code: abxerr.Usage, err: "files cp needs SRC DST"},
		{name: "three", argv: []string{file, "sb-1:a", "sb-1:b"}, code: abxerr.Usage, err: "takes SRC DST, got 3 arguments"},
		{name: "two local", argv: []string{file, "./other.csv"}, code: abxerr.Usage, err: "one side of cp must be ID:PATH and the other a local path"},
		{name: "two remote", argv: []string{"sb-1:a", "sb-2:b"}, code: abxerr.Usage, err: "one side of cp must be ID:PATH"},
		{name: "empty remote path", argv: []string{file, "sb-1:"}, code: abxerr.InvalidInput, err: `empty path in "` + file + `" or "sb-1:"`},
		{name: "empty local path", argv: []string{"sb-1:x", ""}, code: abxerr.InvalidInput, err: "empty path in"},
		{name: "missing source", argv: []string{missing, "sb-1:x"}, code: abxerr.InvalidInput,
			err: "cannot read " + missing + ": no such file or directory"},
		{name: "a directory up without -r", argv: []string{dir, "sb-1:up"}, code: abxerr.InvalidInput, err: dir + " is a directory"},
	})
	refuseVerb(t, "cp", []verbCase{
		{name: "empty ID", argv: []string{":x", "./x"}, code: abxerr.InvalidInput, err: `invalid sandbox ID ""`},
		{name: "bad ID", argv: []string{"a b:x", "./x"}, code: abxerr.InvalidInput, err: `invalid sandbox ID "a b"`},
		{name: "bad ID, up", argv: []string{file, "a b:x"}, code: abxerr.InvalidInput, err: `invalid sandbox ID "a b"`},
		{name: "bad user", argv: []string{"-u", "a b", "sb-1:x", "./x"}, code: abxerr.InvalidInput, err: `invalid --user "a b"`},
		{name: "a remote path that is not UTF-8", argv: []string{"sb-1:bad\xff", "./x"}, code: abxerr.InvalidInput, err: `"bad\xff" is not UTF-8`},
		{name: "a remote path that is not UTF-8, up", argv: []string{file, "sb-1:bad\xff"}, code: abxerr.InvalidInput, err: `"bad\xff" is not UTF-8`},
	})
}
