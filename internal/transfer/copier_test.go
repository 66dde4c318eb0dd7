package transfer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

func TestCheckReadableAndWritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"f.txt": "x"})
	file := filepath.Join(dir, "f.txt")
	cases := []struct {
		name string
		err  error
		want string // in the message; "" for no error
	}{
		{"readable file", CheckReadable(file), ""},
		{"read missing", CheckReadable(filepath.Join(dir, "nope")), "cannot read " + filepath.Join(dir, "nope") + ": "},
		{"read directory", CheckReadable(dir), "is a directory"},
		{"write new file", CheckWritable(filepath.Join(dir, "new.txt")), ""},
		{"write over file", CheckWritable(file), ""},
		{"write in missing dir", CheckWritable(filepath.Join(dir, "no", "x.txt")), "cannot write " + filepath.Join(dir, "no", "x.txt") + ": "},
		{"write under a file", CheckWritable(filepath.Join(file, "x.txt")), "not a directory"},
		{"write a directory", CheckWritable(dir), "is a directory"},
	}
	for _, tc := range cases {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v", tc.name, tc.err)
		case tc.want != "" && (codeOf(t, tc.err) != abxerr.InvalidInput || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: %v, want E1002 saying %q", tc.name, tc.err, tc.want)
		}
	}
}

func TestDownloadWritesTheWholeFileThroughAMeter(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.files["/home/user/a.txt"] = "hello, world\n"
	var ms meters
	c := &Copier{Remote: r, Sandbox: "sb-1", NewMeter: ms.new}
	local := filepath.Join(t.TempDir(), "a.txt")
	if err := c.Download(context.Background(), "/home/user/a.txt", local); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(local); string(got) != "hello, world\n" {
		t.Errorf("local file %q", got)
	}
	if len(ms.list) != 1 || ms.list[0].bytes != 13 || !ms.list[0].done || ms.list[0].label != "/home/user/a.txt" {
		t.Errorf("meters %+v, want one of 13 bytes, done, labelled with the remote path", ms.list)
	}
}

func TestDownloadLeavesNothingBehindOnError(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.files["/big.bin"] = strings.Repeat("x", 1<<16)
	r.failRead = "/big.bin"
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"kept.bin": "old"})
	kept := filepath.Join(dir, "kept.bin")
	c := &Copier{Remote: r}
	ctx := context.Background()
	if err := c.Download(ctx, "/big.bin", filepath.Join(dir, "new.bin")); codeOf(t, err) != abxerr.Network {
		t.Errorf("error %v, want the read's", err)
	}
	if err := c.Download(ctx, "/big.bin", kept); err == nil {
		t.Error("no error")
	}
	if err := c.Download(ctx, "/missing", filepath.Join(dir, "missing")); codeOf(t, err) != abxerr.NotFound {
		t.Errorf("error %v, want E3001", err)
	}
	transfertest.WantTree(t, dir, map[string]string{"kept.bin": "old"})
}

func TestUploadSendsALocalFileWithItsSize(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	var ms meters
	c := &Copier{Remote: r, NewMeter: ms.new}
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"data.csv": "a,b\n1,2\n"})
	local := filepath.Join(dir, "data.csv")
	ctx := context.Background()
	if err := c.Upload(ctx, local, "/tmp/data.csv", Keep); err != nil {
		t.Fatal(err)
	}
	if r.files["/tmp/data.csv"] != "a,b\n1,2\n" {
		t.Errorf("remote holds %q", r.files["/tmp/data.csv"])
	}
	if m := ms.list[0]; m.total != 8 || m.bytes != 8 || !m.done {
		t.Errorf("meter %+v, want 8 of 8 bytes, done", m)
	}
	for _, bad := range []string{dir, filepath.Join(dir, "missing")} {
		if err := c.Upload(ctx, bad, "/tmp/x", Keep); codeOf(t, err) != abxerr.InvalidInput {
			t.Errorf("upload of %s: %v, want E1002", bad, err)
		}
	}
	if len(r.paths()) != 1 {
		t.Errorf("remote holds %q, want one file", r.paths())
	}
}
