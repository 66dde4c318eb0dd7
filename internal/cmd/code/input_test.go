//go:build unix

package code

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// heard is a code interpreter that answers every run with a value, and
// counts the requests it heard.
type heard struct{ n atomic.Int32 }

func (h *heard) server(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h.n.Add(1)
		_, _ = io.WriteString(w, `{"type":"result","is_main_result":true,"text":"2"}`+"\n"+`{"type":"end_of_execution"}`+"\n")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// execRun runs a command of this group for real, as the root would (with
// the names its operation's errors give its inputs), on a factory over
// stdin whose sandbox's code interpreter is ts.
func execRun(ts *httptest.Server, stdin io.Reader, build func(*cmdutil.Factory) *cobra.Command, argv ...string) (factorytest.Streams, error) {
	return execRunIn(context.Background(), ts, stdin, build, argv...)
}

// execRunIn is execRun under ctx.
func execRunIn(ctx context.Context, ts *httptest.Server, stdin io.Reader, build func(*cmdutil.Factory) *cobra.Command, argv ...string) (factorytest.Streams, error) {
	f, streams := factorytest.NewFactory(false, nil, "")
	f.IO.In = stdin
	f.Sandboxes = cmdtest.Sandboxes(interpAt{url: ts.URL})
	cmd := build(f)
	cmd.SetArgs(argv)
	cmd.SetIn(&bytes.Buffer{})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return streams, cmd.ExecuteContext(sandboxes.WithSpelling(ctx, cmdutil.Spelling(cmd, nil)))
}

// TestRunCodeRefusals: the run's rules are the operation's, in the command
// line's words, and refuse the run before the code is read from stdin or
// a file and before anything is sent.
func TestRunCodeRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"blank.py": " \n"})
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		{"unknown language", []string{"sb-1", "--language", "cobol", "-"}, `invalid --language "cobol"`},
		{"language and context", []string{"sb-1", "-l", "python", "-c", "ctx", "-"}, "give --language or --context, not both"},
		{"bad context ID", []string{"sb-1", "-c", "a/b", "-"}, `invalid --context "a/b"`},
		{"context ID with a space", []string{"sb-1", "-c", " ", "-"}, `invalid --context " "`},
		{"env with a quote", []string{"sb-1", "-e", "NAME=it's", "-"}, "invalid --env NAME: quotes, backslashes and line breaks cannot be passed"},
		{"env with a line break", []string{"sb-1", "-e", "A=1\n2", "-"}, "quotes, backslashes and line breaks cannot be passed"},
		{"timeout of two days", []string{"sb-1", "--timeout", "48h", "-"}, `invalid --timeout "48h": must be between 1s and 24h`},
		{"negative timeout", []string{"sb-1", "--timeout=-5s", "-"}, `invalid --timeout "-5s": must be between 1s and 24h`},
		{"empty code", []string{"sb-1", "  "}, "the code is required"},
		{"empty code argument", []string{"sb-1", ""}, "the code is required"},
		{"blank file", []string{"sb-1", "-f", filepath.Join(dir, "blank.py")}, "the code is required"},
		{"missing file", []string{"sb-1", "-f", filepath.Join(dir, "missing.py")}, "cannot read the code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var h heard
			stdin := &readCounter{r: strings.NewReader("1+1")}
			_, err := execRun(h.server(t), stdin, func(f *cmdutil.Factory) *cobra.Command { return NewCmdRunCode(f, nil) }, tc.argv...)
			if e := abxerr.From(err); e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, tc.want) {
				t.Errorf("error %v, want E1002 saying %q", err, tc.want)
			}
			if stdin.n > 0 || h.n.Load() > 0 {
				t.Errorf("stdin read %d times, the interpreter asked %d times", stdin.n, h.n.Load())
			}
		})
	}
	// Empty stdin is empty code, read and refused before it is sent.
	var h heard
	_, err := execRun(h.server(t), strings.NewReader("\n"), func(f *cmdutil.Factory) *cobra.Command { return NewCmdRunCode(f, nil) }, "sb-1", "-")
	if e := abxerr.From(err); e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, "the code is required") || h.n.Load() > 0 {
		t.Errorf("empty stdin: %v (%d requests)", err, h.n.Load())
	}
	// The code from stdin and from a file reaches the interpreter.
	transfertest.WriteTree(t, dir, map[string]string{"job.py": "1+1\n"})
	for _, argv := range [][]string{{"sb-1", "-"}, {"sb-1", "-f", "-"}, {"sb-1", "-f", filepath.Join(dir, "job.py")}} {
		var h heard
		streams, err := execRun(h.server(t), strings.NewReader("1+1"), func(f *cmdutil.Factory) *cobra.Command { return NewCmdRunCode(f, nil) }, argv...)
		if err != nil || streams.Out.String() != "2\n" || h.n.Load() != 1 {
			t.Errorf("%q: %v, stdout %q, %d requests", argv, err, streams.Out.String(), h.n.Load())
		}
	}
}

// readCounter counts the reads of a reader.
type readCounter struct {
	r io.Reader
	n int
}

func (c *readCounter) Read(p []byte) (int, error) {
	c.n++
	return c.r.Read(p)
}

// TestRunCodeStdinReadOnlyWhenAsked: a script's inherited stdin is not
// read unless '-' says so (docs/run-code.md).
func TestRunCodeStdinReadOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	var h heard
	stdin := &readCounter{r: strings.NewReader("not code")}
	streams, err := execRun(h.server(t), stdin, func(f *cmdutil.Factory) *cobra.Command { return NewCmdRunCode(f, nil) }, "sb-1", "1+1")
	if err != nil || streams.Out.String() != "2\n" {
		t.Fatalf("%v, stdout %q", err, streams.Out.String())
	}
	if stdin.n != 0 {
		t.Errorf("stdin was read %d times", stdin.n)
	}
}

// run-code - with nothing on stdin (a terminal, an idle pipe) stops at
// Ctrl-C instead of waiting for input, and sends nothing.
func TestRunCodeStdinCtrlC(t *testing.T) {
	t.Parallel()
	var h heard
	stdin, w := io.Pipe() // never written to
	defer func() { _ = w.Close() }()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := execRunIn(ctx, h.server(t), stdin, func(f *cmdutil.Factory) *cobra.Command { return NewCmdRunCode(f, nil) }, "sb-1", "-")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // reading stdin by now, most likely; either way it must stop
	cancel()
	select {
	case err := <-done:
		if e := abxerr.From(err); e == nil || e.Code != abxerr.Interrupted || abxerr.Exit(err, true) != abxerr.ExitInterrupted {
			t.Errorf("error %v, want E7001 (exit 130)", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("run-code did not stop when interrupted")
	}
	if h.n.Load() != 0 {
		t.Error("the code was sent")
	}
}
