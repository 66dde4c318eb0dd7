//go:build unix

package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
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
// pointed at it.
func interpServer(t *testing.T, tty bool, h http.HandlerFunc) (*RunCodeOptions, *strings.Builder, *strings.Builder) {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	streams, _, _, _ := output.Test(tty)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	streams.Out, streams.ErrOut = out, errOut
	opts := &RunCodeOptions{
		IO: streams, Format: output.Table, ID: "sb-1",
		Interp: func(context.Context, string) (*codeinterp.Client, error) {
			return codeinterp.New(ts.Client(), codeinterp.Endpoint{URL: ts.URL}), nil
		},
		Request: codeinterp.Request{Code: "x"},
	}
	return opts, out, errOut
}

func replyLines(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n")
		}
	}
}

func exitOf(err error) int {
	var st exitStatus
	if errors.As(err, &st) {
		return int(st)
	}
	if err == nil {
		return 0
	}
	return abxerr.From(err).ExitCode()
}

func TestRunCodeText(t *testing.T) {
	for _, tty := range []bool{false, true} {
		opts, out, errOut := interpServer(t, tty, replyLines(richReply...))
		err := runRunCode(context.Background(), opts)
		if exitOf(err) != exitCodeRaised {
			t.Fatalf("tty=%v: exit %d (%v), want 1", tty, exitOf(err), err)
		}
		if out.String() != "working\n42\n" {
			t.Errorf("tty=%v: stdout %q", tty, out.String())
		}
		name := "runcode-stderr-piped.txt"
		if tty {
			name = "runcode-stderr-tty.txt"
		}
		golden(t, name, errOut.String())
	}
}

func TestRunCodeSavesRichResults(t *testing.T) {
	opts, out, errOut := interpServer(t, false, replyLines(richReply...))
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
	if !strings.Contains(errOut.String(), "saved png to "+path+"\n") || strings.Contains(errOut.String(), "not saved") {
		t.Errorf("stderr %q", errOut.String())
	}
	if strings.Contains(out.String(), "Figure") {
		t.Errorf("an image's description went to stdout: %q", out.String())
	}
	entries, _ := os.ReadDir(opts.SaveDir)
	if len(entries) != 1 {
		t.Errorf("left %d files, want 1", len(entries))
	}
}

func TestRunCodeJSON(t *testing.T) {
	opts, out, errOut := interpServer(t, false, replyLines(richReply...))
	opts.Format = output.JSON
	if err := runRunCode(context.Background(), opts); exitOf(err) != 1 {
		t.Fatalf("exit %d", exitOf(err))
	}
	golden(t, "runcode-execution.json", out.String())
	if errOut.String() != "" {
		t.Errorf("stderr %q, want nothing: the error is in the object", errOut.String())
	}

	opts, out, _ = interpServer(t, false, replyLines(richReply...))
	opts.Format, opts.Stream = output.JSON, true
	_ = runRunCode(context.Background(), opts)
	golden(t, "runcode-stream.jsonl", out.String())
}

func TestRunCodeFailures(t *testing.T) {
	cases := []struct {
		name string
		h    http.HandlerFunc
		exit int
		want string
	}{
		{"cut stream", replyLines(`{"type":"stdout","text":"partial\n"}`), 125, "cut off"},
		{"unknown context", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Context ctx-9 not found", http.StatusNotFound)
		}, 3, "run 'abx run-code contexts list sb-1'"},
		{"paused sandbox", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "sandbox sb-1 is paused", http.StatusBadGateway)
		}, 125, "is the sandbox paused"},
		{"refused token", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		}, 4, "access token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts, _, _ := interpServer(t, false, tc.h)
			err := runRunCode(context.Background(), opts)
			e := abxerr.From(err)
			if exitOf(err) != tc.exit || !strings.Contains(e.Message+" "+e.Hint, tc.want) {
				t.Fatalf("exit %d, %q (hint %q); want %d and %q", exitOf(err), e.Message, e.Hint, tc.exit, tc.want)
			}
		})
	}
}

func TestRunCodeTimeoutAndInterrupt(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"type":"number_of_executions","execution_count":1}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	opts, _, _ := interpServer(t, false, hang)
	opts.Timeout = time.Second
	if err := runRunCode(context.Background(), opts); exitOf(err) != abxerr.ExitTimeout {
		t.Fatalf("timeout: exit %d (%v)", exitOf(err), err)
	}

	opts, out, _ := interpServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"type":"stdout","text":"started\n"}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	opts.IO.Out = writerFunc(func(b []byte) (int, error) {
		out.Write(b)
		cancel() // Ctrl-C once the code has started
		return len(b), nil
	})
	if err := runRunCode(ctx, opts); exitOf(err) != abxerr.ExitInterrupted {
		t.Fatalf("interrupt: exit %d (%v)", exitOf(err), err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestErrorText(t *testing.T) {
	e := &codeinterp.ExecError{Name: "KeyError", Value: "'x'", Traceback: ""}
	if got := errorText(e, false); got != "KeyError: 'x'\n" {
		t.Errorf("no traceback: %q", got)
	}
	e.Traceback = "Traceback (most recent call last):\n  File \"x\"\n"
	if got := errorText(e, false); got != "Traceback (most recent call last):\n  File \"x\"\nKeyError: 'x'\n" {
		t.Errorf("traceback without the last line: %q", got)
	}
}

func TestRunCodeGoesOnWhenAResultCannotBeSaved(t *testing.T) {
	opts, out, errOut := interpServer(t, false, replyLines(
		`{"type":"number_of_executions","execution_count":7}`,
		`{"type":"result","is_main_result":false,"png":"`+base64.StdEncoding.EncodeToString(tinyPNG)+`"}`,
		`{"type":"result","is_main_result":false,"svg":"<svg/>"}`,
		`{"type":"stdout","text":"after\n"}`,
		`{"type":"end_of_execution"}`,
	))
	opts.SaveDir = t.TempDir()
	// A directory where the PNG should go: it cannot be replaced by a file.
	if err := os.Mkdir(filepath.Join(opts.SaveDir, "result-7-1.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != exitExecFailed || !strings.Contains(err.Error(), "some results were not saved") {
		t.Fatalf("exit %d: %v", exitOf(err), err)
	}
	if out.String() != "after\n" {
		t.Errorf("the run did not go on: stdout %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(opts.SaveDir, "result-7-2.svg")); err != nil {
		t.Errorf("the next result was not saved: %v", err)
	}
	if !strings.Contains(errOut.String(), "result 1: png not saved: cannot write") {
		t.Errorf("stderr %q", errOut.String())
	}
}

func TestRunCodeSavedPathsInJSON(t *testing.T) {
	opts, out, _ := interpServer(t, false, replyLines(richReply...))
	opts.Format, opts.SaveDir = output.JSON, filepath.Join(t.TempDir(), "out")
	_ = runRunCode(context.Background(), opts)
	if want := `"files": {` + "\n" + `        "png": "` + filepath.Join(opts.SaveDir, "result-7-1.png") + `"`; !strings.Contains(out.String(), want) {
		t.Errorf("JSON lacks %s:\n%s", want, out.String())
	}
}

func TestRunCodeEndedByTheServer(t *testing.T) {
	opts, _, errOut := interpServer(t, false, replyLines(
		`{"type":"number_of_executions","execution_count":2}`,
		`{"type":"error","name":"UnexpectedEndOfExecution","value":"Connection to the execution was closed before the execution was finished","traceback":""}`,
		`{"type":"end_of_execution"}`,
	))
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != exitExecFailed || !strings.Contains(err.Error(), "the code interpreter ended the run: UnexpectedEndOfExecution") {
		t.Fatalf("exit %d: %v", exitOf(err), err)
	}
	if errOut.String() != "" {
		t.Errorf("stderr %q: the server's error is abx's to report, once", errOut.String())
	}
}

func TestRunCodeAsksForTheDefaultContextByLanguage(t *testing.T) {
	var body string
	opts, _, _ := interpServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		replyLines(`{"type":"end_of_execution"}`)(w, r)
	})
	cmd := NewCmdRunCode(&Factory{IO: opts.IO}, func(ctx context.Context, o *RunCodeOptions) error {
		o.Interp = opts.Interp
		return runRunCode(ctx, o)
	})
	cmd.SetArgs([]string{"sb-1", "1+1"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if body != `{"code":"1+1","language":"python"}` {
		t.Errorf("body %s", body)
	}
}
