//go:build unix

package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
)

// files_write is atomic as abx files write is (docs/files.md): the bytes
// go to a temporary name beside the path, renamed onto it when complete,
// so that a write that fails leaves the path as it was and takes away the
// parents it made. Here every upload takes effect in the sandbox but its
// answer is lost, the connection broken.
func TestFilesWriteThatFailsLeavesThePathAsItWas(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t)
	base := env["ABX_ALICLOUD_CONTAINER_BASE_URL"]
	p := faultproxy.New(strings.TrimSuffix(base, "/kruise/api"))
	t.Cleanup(p.Close)
	cs := serve(t, over(t, p.URL+"/kruise/api", emutest.Key))
	id := create(t, cs, "base")
	if res := call(t, cs, "files_write", map[string]any{"sandbox_id": id, "path": "kept/old.txt", "content": "old\n"}, nil); res.IsError {
		t.Fatalf("write: %s", texts(res))
	}

	p.Add(faultproxy.Rule{Method: "POST", Path: `/files$`, Fault: faultproxy.ResetAfter()})
	for _, path := range []string{"made/deeper/new.txt", "kept/old.txt"} {
		if res := call(t, cs, "files_write", map[string]any{"sandbox_id": id, "path": path, "content": "new\n"}, nil); !res.IsError {
			t.Fatalf("write %s passed, though its upload failed", path)
		}
	}
	p.Reset()

	var x struct {
		Stdout string `json:"stdout"`
	}
	if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "ls -A; ls -A kept; cat kept/old.txt"}, &x); res.IsError {
		t.Fatalf("exec: %s", texts(res))
	}
	if strings.Contains(x.Stdout, "made") || strings.Contains(x.Stdout, ".abx-") || !strings.HasSuffix(x.Stdout, "\nold.txt\nold\n") {
		t.Errorf("after the failed writes the home holds, then kept/, then kept/old.txt:\n%s", x.Stdout)
	}
}
