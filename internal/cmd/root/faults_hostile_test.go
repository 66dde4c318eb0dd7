//go:build unix

package root

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// A hostile sandbox chooses the names in its listings: none of them may
// put a file outside the destination, and none reaches the terminal with
// its escape sequences live.
func TestFaultsHostileSandboxData(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	r := run(t, f.env, false, "exec", f.id, "--", "mkdir -p /home/user/d && echo good > /home/user/d/good.txt")
	if r.code != 0 {
		t.Fatalf("set-up: %d %s", r.code, r.stderr)
	}
	listDir := envdPath + `filesystem\.Filesystem/ListDir$`
	listing := func(entries ...*fspb.EntryInfo) []faultproxy.Rule {
		return []faultproxy.Rule{{Path: listDir, Fault: unaryAnswer(&fspb.ListDirResponse{Entries: entries})}}
	}
	good := &fspb.EntryInfo{Name: "good.txt", Path: "/home/user/d/good.txt", Type: fspb.FileType_FILE_TYPE_FILE}
	file := func(name, path string) *fspb.EntryInfo {
		return &fspb.EntryInfo{Name: name, Path: path, Type: fspb.FileType_FILE_TYPE_FILE}
	}
	base := t.TempDir()
	dest := filepath.Join(base, "in", "out")
	nothingWritten := func(t *testing.T, _ *faulty, _ result) {
		transfertest.WantTree(t, base, map[string]string{})
	}
	refused := `^error\[E5004\]: the sandbox listed .* which is not a path inside it`
	cases := []faultCase{
		{name: "dot-dot in a path", args: []string{"files", "cp", "-r", "ID:/home/user/d", dest},
			rules: listing(good, file("evil.txt", "/home/user/d/../../../../evil.txt")), want: 1, wantErr: refused, check: nothingWritten},
		{name: "absolute path elsewhere", args: []string{"files", "cp", "-r", "ID:/home/user/d", dest},
			rules: listing(good, file("evil.txt", "/etc/evil.txt")), want: 1, wantErr: refused, check: nothingWritten},
		{name: "dot-dot in a name", args: []string{"files", "cp", "-r", "ID:/home/user/d", dest},
			rules: listing(good, file("../evil.txt", "/home/user/d/evil.txt")), want: 1, wantErr: refused, check: nothingWritten},
		{name: "empty name", args: []string{"files", "cp", "-r", "ID:/home/user/d", dest},
			rules: listing(good, file("", "/home/user/d/")), want: 1, wantErr: `^error\[E5004\]`, check: nothingWritten},
		{name: "dot name", args: []string{"files", "cp", "-r", "ID:/home/user/d", dest},
			rules: listing(good, &fspb.EntryInfo{Name: ".", Path: "/home/user/d/.", Type: fspb.FileType_FILE_TYPE_DIRECTORY}),
			want:  1, wantErr: `^error\[E5004\]`, check: nothingWritten},
	}
	runFaults(t, f, cases)

	// A link to a directory, as envd describes it (the target's type, the
	// target in symlink_target), is skipped, not followed out.
	target := "/etc"
	runFault(t, f, faultCase{name: "link to a directory", args: []string{"files", "cp", "-r", "ID:/home/user/d", dest},
		rules: listing(good, &fspb.EntryInfo{Name: "etc", Path: "/home/user/d/etc", Type: fspb.FileType_FILE_TYPE_DIRECTORY,
			SymlinkTarget: &target, Permissions: "Lrwxrwxrwx"}),
		check: func(t *testing.T, _ *faulty, r result) {
			transfertest.WantTree(t, base, map[string]string{"in": "/", "in/out": "/", "in/out/good.txt": "good\n"})
			if !strings.Contains(r.stderr, "/home/user/d/etc") {
				t.Errorf("the skipped link is not named: %q", r.stderr)
			}
		}})

	// Names with escape sequences are shown escaped, in a table and piped.
	esc := "\x1b]0;pwned\x07title\x1b[2J"
	for _, tty := range []bool{false, true} {
		f.proxy.Reset()
		f.proxy.Add(faultproxy.Rule{Path: listDir, Fault: unaryAnswer(&fspb.ListDirResponse{Entries: []*fspb.EntryInfo{file(esc, "/home/user/d/"+esc)}})})
		r := run(t, f.env, tty, "files", "ls", f.id, "/home/user/d")
		raw := strings.Contains(r.stdout, "\x1b]") || strings.Contains(r.stdout, "\x1b[2J") || strings.Contains(r.stdout, "\x07")
		if r.code != 0 || raw || !strings.Contains(r.stdout, `\x1b]0;pwned\atitle\x1b[2J`) {
			t.Errorf("tty %v: exit %d, stdout %q", tty, r.code, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "evil.txt")); err == nil {
		t.Error("a file landed outside the destination")
	}
}

// unaryAnswer answers a Connect unary call with msg, in the proto codec.
func unaryAnswer(msg proto.Message) faultproxy.Fault {
	return faultproxy.Func(func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		_, _ = io.Copy(io.Discard, r.Body)
		raw, err := proto.Marshal(msg)
		if err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "application/proto")
		_, _ = w.Write(raw)
	})
}
