//go:build unix

package jupyter

import (
	"os/exec"
	"strings"
	"testing"
)

func inLanguage(language, c string) map[string]any {
	return map[string]any{"code": c, "language": language}
}

func texts(ls []line, kind string) string {
	var b strings.Builder
	for _, l := range ls {
		if l.is(kind) {
			b.WriteString(l.str("text"))
		}
	}
	return b.String()
}

// The JavaScript kernel, as the template's ijavascript answers through the
// server: state lives on, console output streams, the completion value is
// the result (undefined included), an error is its name, message and
// stack.
func TestJavaScriptKernel(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the emulator's JavaScript kernel runs it")
	}
	f := start(t, Options{})
	js := func(c string) []line { return f.run(inLanguage("js", c)) }

	got := js("const x = 6 * 7\nconsole.log('hi', x)\nconsole.error('careful')\nx")
	if count(got) != 1 || texts(got, "stdout") != "hi 42\n" || texts(got, "stderr") != "careful\n" {
		t.Fatalf("first cell: %v", got)
	}
	if res := find(got, "result"); res.str("text") != "42" || res["is_main_result"] != true {
		t.Fatalf("the value: %v", got)
	}
	if res := find(js("let y = x + 1"), "result"); res.str("text") != "undefined" {
		t.Fatalf("a declaration's value: %v", res)
	}
	if res := find(js("({a: y, b: [1, 'two']})"), "result"); res.str("text") != "{ a: 43, b: [ 1, 'two' ] }" {
		t.Fatalf("an object, inspected: %v", res)
	}
	if res := find(js("'text'"), "result"); res.str("text") != "text" {
		t.Fatalf("a string loses one pair of quotes: %v", res)
	}
	got = js("nope + 1")
	e := find(got, "error")
	if e.str("name") != "ReferenceError" || e.str("value") != "nope is not defined" || !strings.Contains(e.str("traceback"), "ReferenceError: nope is not defined    at evalmachine.<anonymous>:1:1") {
		t.Fatalf("an error: %v", got)
	}
	if e := find(js("throw 'plain'"), "error"); e.str("name") != "string" || e.str("value") != "'plain'" {
		t.Fatalf("a thrown string: %v", e)
	}
	got = js("await new Promise((r) => setTimeout(r, 10)); console.log('after')")
	if texts(got, "stdout") != "after\n" || find(got, "error") != nil {
		t.Fatalf("top-level await: %v", got)
	}
	if res := find(f.run(map[string]any{"code": "process.env.ABX_TEST", "language": "javascript", "env_vars": map[string]string{"ABX_TEST": "v"}}), "result"); res.str("text") != "v" {
		t.Fatalf("env_vars: %v", res)
	}
	if res := find(js("process.env.ABX_TEST"), "result"); res.str("text") != "undefined" {
		t.Fatalf("env_vars outlived the cell: %v", res)
	}
	// TypeScript runs on a JavaScript kernel of its own default context,
	// as the real server's does.
	if got := f.run(inLanguage("ts", "typeof y")); find(got, "result").str("text") != "undefined" {
		t.Fatalf("typescript: %v", got)
	}
	if count(js("1")) <= 1 {
		t.Fatal("the execution count does not grow")
	}
}

// The Bash kernel, as the template's bash_kernel answers: one shell per
// context, output merged on stdout, a failing status an error with no name.
func TestBashKernel(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	bash := func(c string) []line { return f.run(inLanguage("bash", c)) }

	got := bash("X=hello\ncd /tmp\necho $X; echo oops >&2")
	if texts(got, "stdout") != "hello\noops\n" || find(got, "error") != nil || find(got, "result") != nil {
		t.Fatalf("first cell: %v", got)
	}
	if got := bash("echo $X $PWD"); texts(got, "stdout") != "hello /tmp\n" {
		t.Fatalf("state: %v", got)
	}
	got = bash("echo partial; false")
	e := find(got, "error")
	if texts(got, "stdout") != "partial\n" || e == nil || e.str("name") != "" || e.str("value") != "1" || e.str("traceback") != "" {
		t.Fatalf("a failing status: %v", got)
	}
	if got := bash("cat <<EOF\nunterminated"); !strings.HasSuffix(texts(got, "stdout"), "unterminated\n") {
		t.Fatalf("a heredoc without its end: %v", got)
	}
	if got := bash("echo next"); texts(got, "stdout") != "next\n" {
		t.Fatalf("after a broken cell: %v", got)
	}
	if got := bash("printf 'no newline'"); texts(got, "stdout") != "no newline" {
		t.Fatalf("output without a newline: %v", got)
	}
	if got := f.run(map[string]any{"code": "echo $ABX_V", "language": "bash", "env_vars": map[string]string{"ABX_V": "a'b"}}); texts(got, "stdout") != "a'b\n" {
		t.Fatalf("env_vars: %v", got)
	}
	if got := bash("echo \"[$ABX_V]\""); texts(got, "stdout") != "[]\n" {
		t.Fatalf("env_vars outlived the cell: %v", got)
	}
	if got := bash("cat; echo read"); texts(got, "stdout") != "read\n" || find(got, "error") != nil {
		t.Fatalf("a command reading stdin gets none: %v", got)
	}
}
