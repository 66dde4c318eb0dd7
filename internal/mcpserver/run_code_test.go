//go:build unix

package mcpserver_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dotPNG displays a 1x1 PNG through IPython's display protocol, with no
// library beyond the standard one.
const dotPNG = `import struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

class Dot:
    def _repr_png_(self):
        ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")

display(Dot())
print("shown")`

func TestRunCodeOnTheEmulator(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the emulator has no code interpreter")
	}
	opts, _ := onEmulator(t)
	cs := serve(t, opts)
	id := create(t, cs, "code-interpreter")

	type runResult struct {
		Stdout  string `json:"stdout"`
		Results []struct {
			IsMainResult bool     `json:"isMainResult"`
			Text         string   `json:"text"`
			Formats      []string `json:"formats"`
		} `json:"results"`
		Error *struct {
			Name      string `json:"name"`
			Traceback string `json:"traceback"`
		} `json:"error"`
	}
	var r runResult
	res := call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "x = 6 * 7\nprint('set')"}, &r)
	if res.IsError || r.Stdout != "set\n" {
		t.Fatalf("run_code: %s %+v", texts(res), r)
	}
	// The variable lives on in the same (default) context.
	res = call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "x", "language": "python"}, &r)
	if res.IsError || len(r.Results) != 1 || !r.Results[0].IsMainResult || r.Results[0].Text != "42" || texts(res) != "42" {
		t.Fatalf("state: %s %+v", texts(res), r)
	}

	res = call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": dotPNG}, &r)
	if res.IsError || len(r.Results) != 1 || !slices.Contains(r.Results[0].Formats, "png") {
		t.Fatalf("image: %s %+v", texts(res), r)
	}
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no PNG image content: %#v", res.Content)
	}
	if !strings.Contains(texts(res), "shown") {
		t.Errorf("text %q", texts(res))
	}

	res = call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "print('before')\n1 / 0"}, &r)
	mustFail(t, res, "ZeroDivisionError")
	if got := texts(res); !strings.Contains(got, "before") || (!strings.Contains(got, "Traceback") && !strings.Contains(got, "1 / 0")) {
		t.Errorf("the error lacks the output or the traceback: %q", texts(res))
	}

	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "1", "language": "python", "context_id": "c1"}, nil), "E1002")
	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "1", "language": "cobol"}, nil), "E1002")
	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "1", "context_id": "no-such-context"}, nil), "E3001")
	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": "missing-sandbox", "code": "1"}, nil), "E3001")
}
