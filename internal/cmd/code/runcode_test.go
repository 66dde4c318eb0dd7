//go:build unix

package code

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// tinyPNG is a 1×1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")

// A reply with every kind of line, as the code interpreter words it.
var richReply = []string{
	`{"type":"number_of_executions","execution_count":7}`,
	`{"type":"stdout","text":"working\n","timestamp":"2026-01-02T15:04:05.000001Z"}`,
	`{"type":"keepalive"}`,
	`{"type":"stderr","text":"a warning\n","timestamp":"2026-01-02T15:04:05.1Z"}`,
	`{"type":"result","is_main_result":false,"text":"<Figure size 640x480>","png":"` + base64.StdEncoding.EncodeToString(tinyPNG) + `","extra":{}}`,
	`{"type":"result","is_main_result":true,"text":"42","extra":{}}`,
	`{"type":"error","name":"ZeroDivisionError","value":"division by zero","traceback":"\u001b[0;31m---------------------------------------------------------------------------\u001b[0m\u001b[0;31mZeroDivisionError\u001b[0m    Traceback (most recent call last)\nCell \u001b[0;32mIn[7], line 1\u001b[0m\n----> 1 1/0\n\n\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"}`,
	`{"type":"end_of_execution"}`,
}

// interpServer answers every request with h and returns run-code options
// pointed at it, printing in format to buffers (a terminal when tty).
func interpServer(t *testing.T, tty bool, format output.Format, h http.HandlerFunc) (*RunCodeOptions, factorytest.Streams) {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	f, streams := factorytest.NewFactory(tty, nil, format)
	return codeOptions(f, ts), streams
}

func codeOptions(f *cmdutil.Factory, ts *httptest.Server) *RunCodeOptions {
	return &RunCodeOptions{IO: f.IO, Request: codeinterp.Request{Code: "x"}, sandboxInterp: sandboxInterp{
		Printer: f.Printer, ID: "sb-1", Sandboxes: cmdtest.Sandboxes(interpAt{url: ts.URL}),
	}}
}

// interpAt is a provider whose sandboxes' code interpreter is the test's
// server at url (or the error err); nothing else of it is called.
type interpAt struct {
	provider.Provider
	url string
	err error
}

func (p interpAt) Endpoint(_ context.Context, id string, port int) (*provider.Endpoint, error) {
	if p.err != nil {
		return nil, p.err
	}
	return &provider.Endpoint{SandboxID: id, Port: port, URL: p.url, State: "running"}, nil
}

func replyLines(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n")
		}
	}
}

// exitOf is the status abx exits with after run-code returned err.
func exitOf(err error) int { return abxerr.Exit(err, true) }

func TestRunCodeText(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{false, true} {
		opts, streams := interpServer(t, tty, output.Table, replyLines(richReply...))
		err := runRunCode(context.Background(), opts)
		if exitOf(err) != 1 {
			t.Fatalf("tty=%v: exit %d (%v), want 1", tty, exitOf(err), err)
		}
		if streams.Out.String() != "working\n42\n" {
			t.Errorf("tty=%v: stdout %q", tty, streams.Out.String())
		}
		name := "runcode-stderr-piped.txt"
		if tty {
			name = "runcode-stderr-tty.txt"
		}
		cmdtest.Golden(t, name, streams.ErrOut.String())
	}
}

func TestRunCodeSavesRichResults(t *testing.T) {
	t.Parallel()
	opts, streams := interpServer(t, false, output.Table, replyLines(richReply...))
	opts.SaveDir = filepath.Join(t.TempDir(), "out", "plots")
	_ = runRunCode(context.Background(), opts)
	path := filepath.Join(opts.SaveDir, "result-7-1.png")
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(tinyPNG) {
		t.Fatalf("%s: %v (%d bytes)", path, err, len(got))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	errOut := streams.ErrOut.String()
	if !strings.Contains(errOut, "saved png to "+path+"\n") || strings.Contains(errOut, "not saved") {
		t.Errorf("stderr %q", errOut)
	}
	if strings.Contains(streams.Out.String(), "Figure") {
		t.Errorf("an image's description went to stdout: %q", streams.Out.String())
	}
	entries, _ := os.ReadDir(opts.SaveDir)
	if len(entries) != 1 {
		t.Errorf("left %d files, want 1", len(entries))
	}
}

// TestRunCodeJSON: with -o json, one Execution at the end; --stream (the
// root makes the Printer print JSON for it too) chooses events instead.
// The code's error is in the JSON: stderr says nothing.
func TestRunCodeJSON(t *testing.T) {
	t.Parallel()
	for golden, stream := range map[string]bool{"runcode-execution.json": false, "runcode-stream.jsonl": true} {
		t.Run(golden, func(t *testing.T) {
			t.Parallel()
			opts, streams := interpServer(t, false, output.JSON, replyLines(richReply...))
			if stream {
				opts.Printer.AskJSONLines(true)
			}
			if err := runRunCode(context.Background(), opts); exitOf(err) != 1 {
				t.Fatalf("exit %d", exitOf(err))
			}
			cmdtest.Golden(t, golden, streams.Out.String())
			if streams.ErrOut.String() != "" {
				t.Errorf("stderr %q, want nothing", streams.ErrOut.String())
			}
		})
	}
}

// TestRunCodeFailures: every failure of abx's own exits 125 (before, a
// missing context exited 3 and a refused token 4), and keeps its code,
// message and hint.
func TestRunCodeFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		h    http.HandlerFunc
		code abxerr.Code
		want string
	}{
		{"cut stream", replyLines(`{"type":"stdout","text":"partial\n"}`), abxerr.Network, "cut off"},
		// The next step, the sandbox's contexts, the root words with
		// 'abx run-code contexts list sb-1'.
		{"unknown context", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Context ctx-9 not found", http.StatusNotFound)
		}, abxerr.NotFound, "Context ctx-9 not found"},
		{"paused sandbox", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "healthy sandbox not found: sb-1", http.StatusBadGateway)
		}, abxerr.Server, "is the sandbox paused"},
		{"refused token", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		}, abxerr.Unauthorized, "access token"},
		{"unreadable line", replyLines(`{"type":`), abxerr.BadResponse, "cannot read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts, _ := interpServer(t, false, output.Table, tc.h)
			if tc.name == "unknown context" {
				opts.Request.ContextID = "ctx-9"
			}
			err := runRunCode(context.Background(), opts)
			e := abxerr.From(err)
			if tc.name == "unknown context" && (e.Next != abxerr.StepContexts || e.Subject != "sb-1") {
				t.Errorf("next %q about %q, want the contexts of sb-1", e.Next, e.Subject)
			}
			if exitOf(err) != abxerr.ExitOwnFailure || e.Code != tc.code || !strings.Contains(e.Message+" "+e.Hint, tc.want) {
				t.Fatalf("exit %d, %s %q (hint %q); want 125, %s and %q", exitOf(err), e.Code, e.Message, e.Hint, tc.code, tc.want)
			}
			if e.Exit != 0 {
				t.Errorf("the error sets its own exit status %d: the root's rule decides", e.Exit)
			}
		})
	}
}

func TestRunCodeInterpreterUnavailable(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, nil, "")
	opts := &RunCodeOptions{IO: f.IO, Request: codeinterp.Request{Code: "1"}, sandboxInterp: sandboxInterp{
		Printer: f.Printer, ID: "sb-1",
		Sandboxes: cmdtest.Sandboxes(interpAt{err: abxerr.New(abxerr.NotFound, "sandbox sb-1 not found")}),
	}}
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != abxerr.ExitOwnFailure || abxerr.From(err).Code != abxerr.NotFound {
		t.Fatalf("exit %d (%v), want 125 with E3001", exitOf(err), err)
	}
	if abxerr.Exit(err, false) != abxerr.ExitNotFound {
		t.Error("the error lost its code")
	}
}

func TestRunCodeTimeout(t *testing.T) {
	t.Parallel()
	opts, _ := interpServer(t, false, output.Table, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"type":"number_of_executions","execution_count":1}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	opts.Timeout = time.Second
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != abxerr.ExitTimeout {
		t.Fatalf("timeout: exit %d (%v)", exitOf(err), err)
	}
	if h := abxerr.From(err).Hint; !strings.Contains(h, "'abx run-code contexts list sb-1' names it") {
		t.Errorf("hint %q", h)
	}
}

func TestRunCodeInterrupt(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"type":"stdout","text":"started\n"}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streams, _, _, _ := output.Test(false)
	var out bytes.Buffer
	streams.Out = writerFunc(func(b []byte) (int, error) {
		out.Write(b)
		cancel() // Ctrl-C once the code has started
		return len(b), nil
	})
	opts := codeOptions(factory.New(streams, func(string) string { return "" }, factory.Options{}), ts)
	opts.Request.ContextID = "ctx-1"
	err := runRunCode(ctx, opts)
	if exitOf(err) != abxerr.ExitInterrupted {
		t.Fatalf("interrupt: exit %d (%v)", exitOf(err), err)
	}
	if h := abxerr.From(err).Hint; !strings.Contains(h, "'abx run-code contexts restart sb-1 ctx-1'") {
		t.Errorf("hint %q", h)
	}
	if out.String() != "started\n" {
		t.Errorf("stdout %q", out.String())
	}
}

func TestRunCodeAsksForTheDefaultContextByLanguage(t *testing.T) {
	t.Parallel()
	bodies := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- string(b)
		replyLines(`{"type":"end_of_execution"}`)(w, r)
	}))
	t.Cleanup(ts.Close)
	f, _ := factorytest.NewFactory(false, nil, "")
	cmd := NewCmdRunCode(f, func(ctx context.Context, o *RunCodeOptions) error {
		o.Sandboxes = codeOptions(f, ts).Sandboxes
		return runRunCode(ctx, o)
	})
	if err := cmdtest.Exec(cmd, "sb-1", "1+1"); err != nil {
		t.Fatal(err)
	}
	if body := <-bodies; body != `{"code":"1+1","language":"python"}` {
		t.Errorf("body %s", body)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestErrorText(t *testing.T) {
	t.Parallel()
	e := &codeinterp.ExecError{Name: "KeyError", Value: "'x'", Traceback: ""}
	if got := errorText(e, false); got != "KeyError: 'x'\n" {
		t.Errorf("no traceback: %q", got)
	}
	e.Traceback = "Traceback (most recent call last):\n  File \"x\"\n"
	if got := errorText(e, false); got != "Traceback (most recent call last):\n  File \"x\"\nKeyError: 'x'\n" {
		t.Errorf("traceback without the last line: %q", got)
	}
	// The JavaScript kernel's stack, its lines joined with nothing by the
	// server: a line a frame again.
	js := &codeinterp.ExecError{Name: "ReferenceError", Value: "nope is not defined",
		Traceback: "ReferenceError: nope is not defined    at evalmachine.<anonymous>:1:1    at Script.runInThisContext (node:vm:137:12)"}
	if got := errorText(js, false); got != "ReferenceError: nope is not defined\n    at evalmachine.<anonymous>:1:1\n    at Script.runInThisContext (node:vm:137:12)\n" {
		t.Errorf("a JavaScript stack: %q", got)
	}
	// The Bash kernel names no error; its value is the cell's status.
	if got := errorText(&codeinterp.ExecError{Value: "2"}, false); got != "exit status 2\n" {
		t.Errorf("a Bash status: %q", got)
	}
}
