//go:build unix

package code

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// unsavable is a reply whose first result cannot be saved when
// result-7-1.png is a directory, followed by more output.
var unsavable = []string{
	`{"type":"number_of_executions","execution_count":7}`,
	`{"type":"result","is_main_result":false,"png":"` + base64.StdEncoding.EncodeToString(tinyPNG) + `"}`,
	`{"type":"result","is_main_result":false,"svg":"<svg/>"}`,
	`{"type":"stdout","text":"after\n"}`,
	`{"type":"end_of_execution"}`,
}

// runUnsavable runs the unsavable reply, printing in format, with a
// --save-dir where result-7-1.png is a directory: it cannot be replaced by
// a file. The run fails, saying so, once it has gone on.
func runUnsavable(t *testing.T, format output.Format) (*RunCodeOptions, factorytest.Streams) {
	t.Helper()
	opts, streams := interpServer(t, false, format, replyLines(unsavable...))
	opts.SaveDir = t.TempDir()
	transfertest.WriteTree(t, opts.SaveDir, nil, "result-7-1.png")
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != abxerr.ExitOwnFailure || !strings.Contains(err.Error(), "some results were not saved: cannot write") {
		t.Fatalf("exit %d: %v", exitOf(err), err)
	}
	return opts, streams
}

func TestRunCodeGoesOnWhenAResultCannotBeSaved(t *testing.T) {
	t.Parallel()
	opts, streams := runUnsavable(t, output.Table)
	if streams.Out.String() != "after\n" {
		t.Errorf("the run did not go on: stdout %q", streams.Out.String())
	}
	if _, err := os.Stat(filepath.Join(opts.SaveDir, "result-7-2.svg")); err != nil {
		t.Errorf("the next result was not saved: %v", err)
	}
	if !strings.Contains(streams.ErrOut.String(), "result 1: png not saved: cannot write") {
		t.Errorf("stderr %q", streams.ErrOut.String())
	}
}

// TestRunCodeUnsavedInJSON: with -o json, stderr is left to the one JSON
// error the root prints; the Execution says which formats were saved.
func TestRunCodeUnsavedInJSON(t *testing.T) {
	t.Parallel()
	opts, streams := runUnsavable(t, output.JSON)
	if streams.ErrOut.String() != "" {
		t.Errorf("stderr %q, want nothing", streams.ErrOut.String())
	}
	out := streams.Out.String()
	if !strings.Contains(out, `"svg": "`+filepath.Join(opts.SaveDir, "result-7-2.svg")+`"`) || strings.Contains(out, `"png": "/`) {
		t.Errorf("files in the JSON:\n%s", out)
	}
}

func TestRunCodeSavedPathsInJSON(t *testing.T) {
	t.Parallel()
	opts, streams := interpServer(t, false, output.JSON, replyLines(richReply...))
	opts.SaveDir = filepath.Join(t.TempDir(), "out")
	_ = runRunCode(context.Background(), opts)
	want := `"files": {` + "\n" + `        "png": "` + filepath.Join(opts.SaveDir, "result-7-1.png") + `"`
	if !strings.Contains(streams.Out.String(), want) {
		t.Errorf("JSON lacks %s:\n%s", want, streams.Out.String())
	}
	if streams.ErrOut.String() != "" {
		t.Errorf("stderr %q: notes are for people", streams.ErrOut.String())
	}
}

func TestRunCodeEndedByTheServer(t *testing.T) {
	t.Parallel()
	opts, streams := interpServer(t, false, output.Table, replyLines(
		`{"type":"number_of_executions","execution_count":2}`,
		`{"type":"error","name":"UnexpectedEndOfExecution","value":"Connection to the execution was closed before the execution was finished","traceback":""}`,
		`{"type":"end_of_execution"}`,
	))
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != abxerr.ExitOwnFailure || !strings.Contains(err.Error(), "the code interpreter ended the run: UnexpectedEndOfExecution") {
		t.Fatalf("exit %d: %v", exitOf(err), err)
	}
	if streams.ErrOut.String() != "" {
		t.Errorf("stderr %q: the server's error is abx's to report, once", streams.ErrOut.String())
	}
}

// A --save-dir that received nothing says so, once, on stderr: a figure
// shown by a kernel without an image backend sends only its description.
func TestRunCodeSaveDirThatGotNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply []string
		note  bool
	}{
		{"a figure's text alone", []string{
			`{"type":"number_of_executions","execution_count":3}`,
			`{"type":"result","is_main_result":false,"text":"<Figure size 640x480 with 1 Axes>"}`,
			`{"type":"end_of_execution"}`,
		}, true},
		{"no result at all", []string{`{"type":"stdout","text":"hi\n"}`, `{"type":"end_of_execution"}`}, true},
		{"an image", []string{
			`{"type":"result","is_main_result":false,"png":"` + base64.StdEncoding.EncodeToString(tinyPNG) + `"}`,
			`{"type":"end_of_execution"}`,
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts, streams := interpServer(t, false, output.Table, replyLines(tc.reply...))
			opts.SaveDir = filepath.Join(t.TempDir(), "plots")
			if err := runRunCode(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			note := "abx: --save-dir " + opts.SaveDir + ": the run returned no image or other rich result to save\n"
			if got := strings.Contains(streams.ErrOut.String(), note); got != tc.note {
				t.Errorf("stderr %q: note %v, want %v", streams.ErrOut.String(), got, tc.note)
			}
		})
	}
}
