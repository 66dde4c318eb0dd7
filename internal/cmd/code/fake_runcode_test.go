//go:build unix

package code

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
)

// TestFakeRunCode runs code in the fake code interpreter: what it prints
// and its value in text, JSON and JSON Lines, variables that live on, code
// that raises, --env.
func TestFakeRunCode(t *testing.T) {
	t.Parallel()
	fk := newFake(t)

	streams, err := fk.run(t, output.Table, codeinterp.Request{Code: "x = 6*7\nprint('hi')\nx"})
	if err != nil || streams.Out.String() != "hi\n42\n" || streams.ErrOut.String() != "" {
		t.Fatalf("text: %v, stdout %q, stderr %q", err, streams.Out.String(), streams.ErrOut.String())
	}
	streams, err = fk.run(t, output.Table, codeinterp.Request{Code: "x + 1"})
	if err != nil || streams.Out.String() != "43\n" {
		t.Fatalf("x did not live on: %v, stdout %q", err, streams.Out.String())
	}

	streams, err = fk.run(t, output.Table, codeinterp.Request{Code: "1/0"})
	if exitOf(err) != 1 || !strings.Contains(streams.ErrOut.String(), "ZeroDivisionError: division by zero\n") {
		t.Fatalf("raised: exit %d (%v), stderr %q", exitOf(err), err, streams.ErrOut.String())
	}
	if strings.Contains(streams.ErrOut.String(), "\x1b[") {
		t.Errorf("colours on a pipe: %q", streams.ErrOut.String())
	}

	streams, err = fk.run(t, output.JSON, codeinterp.Request{Code: "print('p')\nx", EnvVars: nil})
	var x codeinterp.Execution
	if err != nil || json.Unmarshal(streams.Out.Bytes(), &x) != nil || x.Text() != "42" ||
		len(x.Logs.Stdout) != 1 || x.Logs.Stdout[0] != "p\n" || x.Error != nil || x.ExecutionCount < 3 {
		t.Fatalf("JSON: %v\n%s", err, streams.Out.String())
	}

	streams, err = fk.run(t, factorytest.JSONLines, codeinterp.Request{Code: "import os\nos.environ['GREETING']",
		EnvVars: map[string]string{"GREETING": "hello"}})
	lines := strings.Split(strings.TrimSpace(streams.Out.String()), "\n")
	if err != nil || lines[len(lines)-1] != `{"type":"end","error":false}` || !strings.Contains(streams.Out.String(), `"isMainResult":true,"text":"hello"`) {
		t.Fatalf("--stream with --env: %v\n%s", err, streams.Out.String())
	}
}

// TestFakeRunCodeSaves saves what the code displays, and puts the path in
// the JSON.
func TestFakeRunCodeSaves(t *testing.T) {
	t.Parallel()
	fk := newFake(t)
	dir := filepath.Join(t.TempDir(), "out")
	code := "class S:\n    def _repr_svg_(self):\n        return '<svg/>'\n\ndisplay(S())"
	streams, err := fk.run(t, output.JSON, codeinterp.Request{Code: code}, func(o *RunCodeOptions) { o.SaveDir = dir })
	if err != nil {
		t.Fatal(err)
	}
	var x codeinterp.Execution
	if err := json.Unmarshal(streams.Out.Bytes(), &x); err != nil || len(x.Results) != 1 {
		t.Fatalf("%v\n%s", err, streams.Out.String())
	}
	path := x.Results[0].Files["svg"]
	if got, err := os.ReadFile(path); err != nil || string(got) != "<svg/>" || filepath.Dir(path) != dir {
		t.Errorf("%q: %v %q", path, err, got)
	}
}

// TestFakeRunCodeFailures: every failure of abx's own exits 125 and keeps
// its code.
func TestFakeRunCodeFailures(t *testing.T) {
	t.Parallel()
	fk := newFake(t)

	_, err := fk.run(t, output.Table, codeinterp.Request{Code: "1", ContextID: "no-such-context"})
	// The hint that names 'abx run-code contexts list' is the root's, from
	// the step.
	if e := abxerr.From(err); exitOf(err) != 125 || e.Code != abxerr.NotFound || e.Next != abxerr.StepContexts || e.Subject != fk.id {
		t.Errorf("unknown context: exit %d, %s %q (next %q %q)", exitOf(err), e.Code, e.Message, e.Next, e.Subject)
	}

	_, err = fk.run(t, output.Table, codeinterp.Request{Code: "1"}, func(o *RunCodeOptions) { o.ID = "no-such-sandbox" })
	if e := abxerr.From(err); exitOf(err) != 125 || e.Code != abxerr.NotFound {
		t.Errorf("unknown sandbox: exit %d, %s %q", exitOf(err), e.Code, e.Message)
	}

	if err := fk.p.Pause(context.Background(), fk.id); err != nil {
		t.Fatal(err)
	}
	_, err = fk.run(t, output.Table, codeinterp.Request{Code: "1"})
	// The hint that names 'abx resume' is the root's, from the step.
	if e := abxerr.From(err); exitOf(err) != 125 || e.Code != abxerr.Paused || e.Next != abxerr.StepResume || e.Subject != fk.id {
		t.Errorf("paused: exit %d, %q (next %q %q)", exitOf(err), e.Message, e.Next, e.Subject)
	}
}

// TestFakeRunCodeTimeout: --timeout stops the waiting, not the code; the
// context is freed by restarting it, as the hint says (docs/run-code.md).
func TestFakeRunCodeTimeout(t *testing.T) {
	t.Parallel()
	fk := newFake(t)
	// A warm kernel, so that the cell has begun when the timeout passes;
	// and a cell that ends by itself, so that a slow machine only waits.
	if _, err := fk.run(t, output.Table, codeinterp.Request{Code: "1"}); err != nil {
		t.Fatal(err)
	}
	_, err := fk.run(t, output.Table, codeinterp.Request{Code: "import time\ntime.sleep(10)"},
		func(o *RunCodeOptions) { o.Timeout = time.Second })
	if e := abxerr.From(err); exitOf(err) != abxerr.ExitTimeout || !strings.Contains(e.Hint, "restart its context") {
		t.Errorf("--timeout: exit %d, %q (hint %q)", exitOf(err), e.Message, e.Hint)
	}
	start := time.Now()
	restartDefault(t, fk)
	if streams, err := fk.run(t, output.Table, codeinterp.Request{Code: "1+1"}); err != nil || streams.Out.String() != "2\n" {
		t.Fatalf("after the restart: %v, stdout %q", err, streams.Out.String())
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Logf("the context was freed after %s: the restart came before the cell began", d)
	}
}

// restartDefault restarts the sandbox's python context, found with
// contexts list as the hint of run-code says.
func restartDefault(t *testing.T, fk *fake) {
	t.Helper()
	streams, err := fk.contexts(t, output.JSON, "list", fk.id)
	var list []codeinterp.Context
	if err != nil || json.Unmarshal(streams.Out.Bytes(), &list) != nil {
		t.Fatalf("%v: %s", err, streams.Out.String())
	}
	i := slices.IndexFunc(list, func(c codeinterp.Context) bool { return c.Language == "python" })
	if i < 0 {
		t.Fatalf("no python context: %s", streams.Out.String())
	}
	if _, err := fk.contexts(t, output.Table, "restart", fk.id, list[i].ID); err != nil {
		t.Fatal(err)
	}
}

// TestFakeRunCodeCommand goes from argv to the fake: the code comes from
// the factory's stdin and the ID as sandbox/ID.
func TestFakeRunCodeCommand(t *testing.T) {
	t.Parallel()
	fk := newFake(t)
	f, streams := fk.factory(t, output.Table)
	streams.In.WriteString("import sys\nprint(sys.version_info[0])\n")
	if err := cmdtest.Exec(NewCmdRunCode(f, nil), "sandbox/"+fk.id, "-"); err != nil {
		t.Fatal(err)
	}
	if streams.Out.String() != "3\n" {
		t.Errorf("stdout %q", streams.Out.String())
	}
}

// TestFakeRunCodeLargeImage: a 32 MiB image the kernel displays comes out
// of the fake code interpreter byte for byte, saved and printed.
func TestFakeRunCodeLargeImage(t *testing.T) {
	t.Parallel()
	fk := newFake(t)
	code := "class Big:\n    def _repr_png_(self):\n        return bytes(range(256)) * (32 * 4096)\n\ndisplay(Big())"
	want := bytes.Repeat(func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}(), 32*4096)

	dir := t.TempDir()
	streams, err := fk.run(t, output.JSON, codeinterp.Request{Code: code}, func(o *RunCodeOptions) {
		o.SaveDir, o.tempDir = dir, t.TempDir()
	})
	if err != nil {
		t.Fatal(err)
	}
	var x codeinterp.Execution
	if err := json.Unmarshal(streams.Out.Bytes(), &x); err != nil || len(x.Results) != 1 {
		t.Fatalf("%v: %d results", err, len(x.Results))
	}
	if x.Results[0].PNG != base64.StdEncoding.EncodeToString(want) {
		t.Errorf("the printed image differs: %d bytes of base64", len(x.Results[0].PNG))
	}
	if got, err := os.ReadFile(x.Results[0].Files["png"]); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the saved image differs: %d bytes (%v)", len(got), err)
	}
}
