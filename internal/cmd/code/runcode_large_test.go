//go:build unix

package code

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
)

// pattern is n bytes that are not base64 text or UTF-8, and not zeros.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// bigServer answers every request with reply, written as it is, and
// returns run-code options pointed at it, printing in format, with spills
// kept in a directory of their own.
func bigServer(t *testing.T, format output.Format, reply []byte) (*RunCodeOptions, factorytest.Streams) {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(reply)
	}))
	t.Cleanup(ts.Close)
	f, streams := factorytest.NewFactory(false, nil, format)
	opts := codeOptions(f, ts)
	opts.tempDir = t.TempDir()
	return opts, streams
}

func joinLines(lines ...string) []byte {
	return []byte(strings.Join(lines, "\n") + "\n")
}

// emptyDir fails unless dir holds nothing: no file, no temporary one.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s holds %s", dir, e.Name())
	}
}

// TestRunCodeLargeImage: a 32 MiB image comes out byte for byte in every
// output, saved and printed, as encoding/json would print it, and nothing
// is left behind.
func TestRunCodeLargeImage(t *testing.T) {
	t.Parallel()
	img := pattern(32 << 20)
	b64 := base64.StdEncoding.EncodeToString(img)
	reply := joinLines(
		`{"type": "number_of_executions", "execution_count": 4}`,
		`{"type": "result", "text": "<Figure size 640x480>", "html": null, "png": "`+b64+`", "extra": {}, "is_main_result": false}`,
		`{"type": "stdout", "text": "after\n", "timestamp": "2026-01-02T15:04:05.000001Z"}`,
		`{"type": "end_of_execution"}`,
	)
	// What encoding/json prints for it; base64 needs no escaping, so the
	// image is put in afterwards, which spares the test encoding it.
	want := func(files map[string]string) *codeinterp.Execution {
		x := codeinterp.NewExecution()
		x.ExecutionCount = 4
		x.Logs.Stdout = []string{"after\n"}
		x.Results = []codeinterp.Result{{Text: "<Figure size 640x480>", PNG: "the image", Files: files}}
		return x
	}
	for _, tc := range []struct {
		name   string
		format output.Format
		stream bool
		save   bool
	}{
		{"table", output.Table, false, false},
		{"table, saved", output.Table, false, true},
		{"json", output.JSON, false, false},
		{"json, saved", output.JSON, false, true},
		{"stream, saved", output.JSON, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, streams := bigServer(t, tc.format, reply)
			if tc.stream {
				opts.Printer.AskJSONLines(true)
			}
			var files map[string]string
			if tc.save {
				opts.SaveDir = filepath.Join(t.TempDir(), "out")
				files = map[string]string{"png": filepath.Join(opts.SaveDir, "result-4-1.png")}
			}
			if err := runRunCode(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			switch {
			case tc.stream:
				_ = output.WriteJSONLine(&buf, codeCountEvent{"executionCount", 4})
				_ = output.WriteJSONLine(&buf, codeResultEvent{"result", want(files).Results[0]})
				_ = output.WriteJSONLine(&buf, codeLogEvent{"stdout", codeinterp.Log{Text: "after\n", Timestamp: "2026-01-02T15:04:05.000001Z"}})
				_ = output.WriteJSONLine(&buf, codeEndEvent{"end", false})
			case tc.format == output.JSON:
				_ = output.WriteJSON(&buf, want(files))
			default:
				buf.WriteString("after\n")
			}
			wantOut := bytes.Replace(buf.Bytes(), []byte(`"the image"`), []byte(`"`+b64+`"`), 1)
			if !bytes.Equal(streams.Out.Bytes(), wantOut) {
				t.Errorf("stdout differs: %d bytes, want %d\n%.300s", streams.Out.Len(), len(wantOut), streams.Out.String())
			}
			switch {
			case tc.save:
				got, err := os.ReadFile(files["png"])
				if err != nil || !bytes.Equal(got, img) {
					t.Errorf("saved %d bytes (%v), want the image's %d", len(got), err, len(img))
				}
				if entries, _ := os.ReadDir(opts.SaveDir); len(entries) != 1 {
					t.Errorf("--save-dir holds %d files", len(entries))
				}
			case tc.format == output.Table:
				if streams.ErrOut.String() != "result 1 has png: not saved (use --save-dir DIR)\n" {
					t.Errorf("stderr %q", streams.ErrOut.String())
				}
			}
			emptyDir(t, opts.tempDir)
		})
	}
}

// asciiJSON quotes s as Python's json.dumps does: everything outside
// ASCII as \u escapes, in surrogate pairs past U+FFFF.
func asciiJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < ' ' || r > '~':
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestRunCodeEscapedText: text formats with escapes of every kind, short
// and long (spilled, and cut into pieces on the way out), are saved as
// their unescaped text and printed as encoding/json prints them.
func TestRunCodeEscapedText(t *testing.T) {
	t.Parallel()
	unit := "<p class=\"x\">é€😀 \u2028\u2029 & \\ \t\x01 tab</p>\n"
	long := strings.Repeat(unit, 40000) // 1.7 MB, past spillAt
	short := "<b>\U0001F600 \u00e9</b>"
	raw := "caf\xc3\xa9 \xff" // raw UTF-8, and a byte that is not: U+FFFD
	lines := []string{
		`{"type": "number_of_executions", "execution_count": 5}`,
		`{"type": "result", "text": "t", "html": ` + asciiJSON(short) + `, "svg": ` + asciiJSON(long) +
			`, "markdown": "` + raw + `", "latex": "\ud83d lone", "is_main_result": true}`,
		`{"type": "end_of_execution"}`,
	}
	reply := joinLines(lines...)
	var x codeinterp.Execution // what encoding/json reads
	x.Results = make([]codeinterp.Result, 1)
	if err := json.Unmarshal([]byte(lines[1]), &x.Results[0]); err != nil {
		t.Fatal(err)
	}
	r := x.Results[0]
	r.IsMainResult = true
	if r.SVG != long || r.HTML != short || r.Markdown != "café \uFFFD" || r.LaTeX != "\uFFFD lone" {
		t.Fatalf("the test's own reply: %q %q %q", r.HTML, r.Markdown, r.LaTeX)
	}

	for _, tc := range []struct {
		name   string
		format output.Format
		stream bool
	}{{"json", output.JSON, false}, {"stream", output.JSON, true}, {"table", output.Table, false}} {
		t.Run(tc.name, func(t *testing.T) {
			opts, streams := bigServer(t, tc.format, reply)
			if tc.stream {
				opts.Printer.AskJSONLines(true)
			}
			opts.SaveDir = t.TempDir()
			if err := runRunCode(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			saved := map[string]string{"svg": long, "html": short, "markdown": r.Markdown, "latex": r.LaTeX}
			files := map[string]string{}
			for name, text := range saved {
				ext := map[string]string{"svg": "svg", "html": "html", "markdown": "md", "latex": "tex"}[name]
				files[name] = filepath.Join(opts.SaveDir, "result-5-1."+ext)
				if got, err := os.ReadFile(files[name]); err != nil || string(got) != text {
					t.Errorf("%s: saved %d bytes (%v), want %d", name, len(got), err, len(text))
				}
			}
			want := r
			want.Files = files
			var buf bytes.Buffer
			switch {
			case tc.stream:
				_ = output.WriteJSONLine(&buf, codeCountEvent{"executionCount", 5})
				_ = output.WriteJSONLine(&buf, codeResultEvent{"result", want})
				_ = output.WriteJSONLine(&buf, codeEndEvent{"end", false})
			case tc.format == output.JSON:
				x := codeinterp.NewExecution()
				x.ExecutionCount = 5
				x.Results = []codeinterp.Result{want}
				_ = output.WriteJSON(&buf, x)
			default:
				buf.WriteString("t\n")
			}
			if got := streams.Out.String(); got != buf.String() {
				i := 0
				for i < len(got) && i < buf.Len() && got[i] == buf.Bytes()[i] {
					i++
				}
				t.Errorf("stdout differs at byte %d: %.80q, want %.80q", i, got[i:], buf.String()[i:])
			}
			emptyDir(t, opts.tempDir)
		})
	}
}

// TestRunCodeManyLines: printed output, many small lines of it with
// escapes, passes through whole and in order.
func TestRunCodeManyLines(t *testing.T) {
	t.Parallel()
	var lines []string
	var want strings.Builder
	for i := range 20000 {
		text := fmt.Sprintf("line %d: é\U0001F600\t\"q\"\n", i)
		lines = append(lines, `{"type": "stdout", "text": `+asciiJSON(text)+`, "timestamp": "2026-01-02T15:04:05.000001Z"}`)
		want.WriteString(text)
	}
	lines = append(lines, `{"type": "end_of_execution"}`)
	opts, streams := bigServer(t, output.Table, joinLines(lines...))
	if err := runRunCode(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if streams.Out.String() != want.String() {
		t.Errorf("stdout: %d bytes, want %d", streams.Out.Len(), want.Len())
	}
}

// TestRunCodeBrokenResult: a result line that turns out malformed, or is
// cut off, halfway through its image fails the run (125) and leaves
// nothing of the image behind, in --save-dir or in spills. (A line past
// the client's limit fails the same way: codeinterp's tests hold that.)
func TestRunCodeBrokenResult(t *testing.T) {
	t.Parallel()
	b64 := base64.StdEncoding.EncodeToString(pattern(3 << 20))
	for _, tc := range []struct {
		name string
		line string
		want string
	}{
		{"malformed", `{"type": "result", "png": "` + b64 + `\x"}`, "cannot read"},
		{"cut", `{"type": "result", "png": "` + b64, "cut off"},
	} {
		for _, format := range []output.Format{output.Table, output.JSON} {
			t.Run(tc.name+" "+string(format), func(t *testing.T) {
				t.Parallel()
				reply := joinLines(`{"type": "number_of_executions", "execution_count": 1}`, tc.line, `{"type": "end_of_execution"}`)
				if tc.name == "cut" {
					reply = joinLines(`{"type": "number_of_executions", "execution_count": 1}`)
					reply = append(reply, tc.line...)
				}
				opts, _ := bigServer(t, format, reply)
				opts.SaveDir = t.TempDir()
				err := runRunCode(context.Background(), opts)
				if exitOf(err) != abxerr.ExitOwnFailure || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("exit %d: %v", exitOf(err), err)
				}
				emptyDir(t, opts.SaveDir)
				emptyDir(t, opts.tempDir)
			})
		}
	}
}

// TestRunCodeStreamedBase64: base64 in lines, as MIME writes it, is
// decoded; text that is not base64 is noted, not saved, and the run goes
// on to exit 125.
func TestRunCodeStreamedBase64(t *testing.T) {
	t.Parallel()
	img := pattern(200 << 10)
	var mime strings.Builder
	for b64 := base64.StdEncoding.EncodeToString(img); len(b64) > 0; {
		n := min(76, len(b64))
		mime.WriteString(b64[:n] + `\r\n`)
		b64 = b64[n:]
	}
	opts, streams := bigServer(t, output.Table, joinLines(
		`{"type": "result", "png": " `+mime.String()+` "}`,
		`{"type": "result", "jpeg": "`+base64.StdEncoding.EncodeToString(img[:1000])+`=AAAA"}`,
		`{"type": "result", "pdf": "not base64!"}`,
		`{"type": "stdout", "text": "after\n"}`,
		`{"type": "end_of_execution"}`,
	))
	opts.SaveDir = t.TempDir()
	err := runRunCode(context.Background(), opts)
	if exitOf(err) != abxerr.ExitOwnFailure || !strings.Contains(err.Error(), "some results were not saved: its jpeg is not base64") {
		t.Fatalf("exit %d: %v", exitOf(err), err)
	}
	if got, err := os.ReadFile(filepath.Join(opts.SaveDir, "result-1.png")); err != nil || !bytes.Equal(got, img) {
		t.Errorf("the MIME-style image: %d bytes (%v)", len(got), err)
	}
	if entries, _ := os.ReadDir(opts.SaveDir); len(entries) != 1 {
		t.Errorf("--save-dir holds %d files", len(entries))
	}
	errOut := streams.ErrOut.String()
	for _, want := range []string{"result 2: jpeg not saved: its jpeg is not base64", "result 3: pdf not saved: its pdf is not base64"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if streams.Out.String() != "after\n" {
		t.Errorf("the run did not go on: %q", streams.Out.String())
	}
}

// TestRunCodeImageAllocatesLittle: saving a 32 MiB image allocates a small
// fraction of it. Not parallel: it reads the process's allocation count.
func TestRunCodeImageAllocatesLittle(t *testing.T) {
	reply := joinLines(
		`{"type": "result", "png": "`+base64.StdEncoding.EncodeToString(pattern(32<<20))+`"}`,
		`{"type": "end_of_execution"}`,
	)
	for _, format := range []output.Format{output.Table, output.JSON} {
		opts, _ := bigServer(t, format, reply)
		opts.SaveDir = t.TempDir()
		// Printed to nothing: a buffer holding the output would count.
		streams, _, _, _ := output.Test(false)
		streams.Out = io.Discard
		opts.IO, opts.Printer = streams, output.NewPrinter(streams)
		opts.Printer.SetFormat(format)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := runRunCode(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		if got > uint64(len(reply)/10) {
			t.Errorf("%s: allocated %d bytes for a reply of %d", format, got, len(reply))
		}
		t.Logf("%s: allocated %d bytes for a reply of %d", format, got, len(reply))
	}
}

// TestRunCodeCannotSpill: when a large value cannot be kept for the JSON
// output, the run stops (125) rather than print it in part.
func TestRunCodeCannotSpill(t *testing.T) {
	t.Parallel()
	reply := joinLines(
		`{"type": "result", "png": "`+base64.StdEncoding.EncodeToString(pattern(1<<20))+`"}`,
		`{"type": "end_of_execution"}`,
	)
	opts, streams := bigServer(t, output.JSON, reply)
	opts.tempDir = filepath.Join(t.TempDir(), "missing")
	err := runRunCode(context.Background(), opts)
	if e := abxerr.From(err); exitOf(err) != abxerr.ExitOwnFailure || !strings.Contains(e.Message, "cannot keep a result until it is printed") || !strings.Contains(e.Hint, "TMPDIR") {
		t.Fatalf("exit %d: %v (hint %q)", exitOf(err), err, e.Hint)
	}
	if streams.Out.Len() != 0 {
		t.Errorf("printed %d bytes", streams.Out.Len())
	}
}
