package transfer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// dirNames lists a local directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
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
	kept := filepath.Join(dir, "kept.bin")
	if err := os.WriteFile(kept, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	if got := dirNames(t, dir); len(got) != 1 || got[0] != "kept.bin" {
		t.Errorf("the directory holds %q, want only kept.bin", got)
	}
	if got, _ := os.ReadFile(kept); string(got) != "old" {
		t.Errorf("a failed download replaced kept.bin with %q", got)
	}
}

func TestUploadSendsALocalFileWithItsSize(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	var ms meters
	c := &Copier{Remote: r, NewMeter: ms.new}
	dir := t.TempDir()
	local := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(local, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Upload(ctx, local, "/tmp/data.csv"); err != nil {
		t.Fatal(err)
	}
	if r.files["/tmp/data.csv"] != "a,b\n1,2\n" {
		t.Errorf("remote holds %q", r.files["/tmp/data.csv"])
	}
	if m := ms.list[0]; m.total != 8 || m.bytes != 8 || !m.done {
		t.Errorf("meter %+v, want 8 of 8 bytes, done", m)
	}
	for _, bad := range []string{dir, filepath.Join(dir, "missing")} {
		if err := c.Upload(ctx, bad, "/tmp/x"); codeOf(t, err) != abxerr.InvalidInput {
			t.Errorf("upload of %s: %v, want E1002", bad, err)
		}
	}
	if len(r.paths()) != 1 {
		t.Errorf("remote holds %q, want one file", r.paths())
	}
}

func TestCheckReadableAndWritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
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
