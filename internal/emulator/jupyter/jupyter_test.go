//go:build unix

package jupyter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/envd"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

const token = "tok-123"

type fixture struct {
	t    *testing.T
	srv  *Server
	url  string
	home string // on this machine
	cwd  string // the same, as the kernel sees it
}

// start serves a fake code interpreter for a sandbox directory, with the
// fake envd's path rule and environment, as the gateway wires them.
func start(t *testing.T, opts Options) *fixture {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	root := t.TempDir()
	home := filepath.Join(root, "home", "user")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	// Kernels run as the gateway runs them: in the sandbox's view where
	// this machine allows it.
	e := envd.New(envd.Options{Root: root, Isolated: jail.Available() == nil, Hide: []string{root}})
	if opts.Command == nil {
		opts.Command = func(dir string, argv []string) (*spawn.Cmd, error) {
			return e.Command(envd.User, dir, argv, nil)
		}
	}
	opts.KeepRequests = true
	s := New(opts)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	t.Cleanup(s.Close) // first: kills the kernels that handlers wait on
	cwd := home        // what os.getcwd() says in the home directory
	if jail.Available() == nil {
		cwd = "/home/user"
	}
	return &fixture{t: t, srv: s, url: ts.URL, home: home, cwd: cwd}
}

func (f *fixture) request(method, path, body string) *http.Request {
	f.t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Access-Token", token)
	return req
}

// do sends a request and returns the status and the body.
func (f *fixture) do(method, path, body string) (int, string) {
	f.t.Helper()
	resp, err := http.DefaultClient.Do(f.request(method, path, body))
	if err != nil {
		f.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type line map[string]any

func (l line) str(key string) string { s, _ := l[key].(string); return s }

func (l line) is(kind string) bool { return l.str("type") == kind }

// lines reads an /execute reply a line at a time.
type lines struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

func (f *fixture) open(ctx context.Context, body any) *lines {
	f.t.Helper()
	b, _ := json.Marshal(body)
	req := f.request("POST", "/execute", string(b)).WithContext(ctx)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		f.t.Fatalf("execute: %d %s", resp.StatusCode, msg)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Fatalf("content type %q", ct)
	}
	f.t.Cleanup(func() { _ = resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	return &lines{t: f.t, resp: resp, sc: sc}
}

func (ls *lines) next() line {
	ls.t.Helper()
	if !ls.sc.Scan() {
		ls.t.Fatalf("stream ended early: %v", ls.sc.Err())
	}
	var l line
	if err := json.Unmarshal(ls.sc.Bytes(), &l); err != nil {
		ls.t.Fatalf("line %q: %v", ls.sc.Bytes(), err)
	}
	return l
}

// rest reads to the end, which must be end_of_execution, and returns the
// lines before it, keepalives left out.
func (ls *lines) rest() []line {
	ls.t.Helper()
	var out []line
	for {
		l := ls.next()
		if l.is("end_of_execution") {
			if ls.sc.Scan() {
				ls.t.Fatalf("a line after end_of_execution: %s", ls.sc.Bytes())
			}
			return out
		}
		if !l.is("keepalive") {
			out = append(out, l)
		}
	}
}

// run executes code and returns the stream's lines.
func (f *fixture) run(body map[string]any) []line {
	f.t.Helper()
	return f.open(context.Background(), body).rest()
}

func code(c string) map[string]any { return map[string]any{"code": c} }

func inContext(id, c string) map[string]any { return map[string]any{"code": c, "context_id": id} }

func find(ls []line, kind string) line {
	for _, l := range ls {
		if l.is(kind) {
			return l
		}
	}
	return nil
}

func count(ls []line) int {
	if l := find(ls, "number_of_executions"); l != nil {
		n, _ := l["execution_count"].(float64)
		return int(n)
	}
	return 0
}

func (f *fixture) createContext(body string) string {
	f.t.Helper()
	status, b := f.do("POST", "/contexts", body)
	if status != http.StatusOK {
		f.t.Fatalf("create context: %d %s", status, b)
	}
	var c struct{ ID, Language, Cwd string }
	if err := json.Unmarshal([]byte(b), &c); err != nil || c.ID == "" || c.Language != "python" {
		f.t.Fatalf("create context: %s %v", b, err)
	}
	return c.ID
}

func TestVariablesPersistAndExecutionsCount(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	first := f.run(code("x = 6*7"))
	if count(first) != 1 || len(first) != 1 {
		t.Fatalf("first: %v", first)
	}
	second := f.run(code("x"))
	res := find(second, "result")
	if count(second) != 2 || res == nil || res.str("text") != "42" || res["is_main_result"] != true {
		t.Fatalf("second: %v", second)
	}
	if extra, ok := res["extra"].(map[string]any); !ok || len(extra) != 0 {
		t.Fatalf("extra: %v", res)
	}
	// The server strips one pair of ' or " from the text, which is the
	// value's repr(): IPython quotes a string with " when it holds a '.
	for src, want := range map[string]string{
		`'hello'`:         "hello",
		`"it's"`:          "it's",
		`'say "hi"'`:      `say "hi"`,
		`'both \' and "'`: `both \' and "`,
		`["a"]`:           "['a']",
		`"'"`:             "'",
	} {
		if res := find(f.run(code(src)), "result"); res.str("text") != want {
			t.Fatalf("%s: text %q, want %q: one pair of quotes is stripped", src, res.str("text"), want)
		}
	}
	if got := f.run(code("None")); find(got, "result") != nil {
		t.Fatalf("None has no result: %v", got)
	}
	if got := f.run(code("x;")); find(got, "result") != nil {
		t.Fatalf("a trailing semicolon hides the value: %v", got)
	}

	id := f.createContext(`{}`)
	other := f.run(inContext(id, "x"))
	if e := find(other, "error"); e == nil || e.str("name") != "NameError" || count(other) != 1 {
		t.Fatalf("another context sees x: %v", other)
	}
}

func TestOutputStreamsAsTheCodeRuns(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	gate := filepath.Join(f.home, "gate") // the kernel sees it in its home
	ls := f.open(context.Background(), code(`import os, time
print("first")
while not os.path.exists(`+strconv.Quote(filepath.Join(f.cwd, "gate"))+`):
    time.sleep(0.01)
print("second")
os.write(1, b"raw\n")`))
	if l := ls.next(); !l.is("number_of_executions") {
		t.Fatalf("first line: %v", l)
	}
	// The code cannot go on before the gate exists: reading "first" now
	// shows it was sent while the code ran.
	l := ls.next()
	if !l.is("stdout") || l.str("text") != "first\n" {
		t.Fatalf("not streamed: %v", l)
	}
	if _, err := time.Parse(time.RFC3339Nano, l.str("timestamp")); err != nil || !strings.HasSuffix(l.str("timestamp"), "Z") {
		t.Fatalf("timestamp %q: %v", l.str("timestamp"), err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out string
	for _, l := range ls.rest() {
		if l.is("stdout") {
			out += l.str("text")
		}
	}
	if out != "second\nraw\n" && out != "raw\nsecond\n" {
		t.Fatalf("rest of stdout: %q", out)
	}
}

func TestErrorsStopTheCellWithIPythonsTraceback(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	got := f.run(code("print('before')\n1/0\nprint('after')"))
	last := got[len(got)-1]
	if !last.is("error") || last.str("name") != "ZeroDivisionError" || last.str("value") != "division by zero" {
		t.Fatalf("error: %v", got)
	}
	tb := last.str("traceback")
	for _, want := range []string{
		"\x1b[0;31m" + strings.Repeat("-", 75) + "\x1b[0m",
		"\x1b[0;31mZeroDivisionError\x1b[0m                         Traceback (most recent call last)",
		"Cell \x1b[0;32mIn[1], line 2\x1b[0m\n",
		"\x1b[0;32m----> 2\x1b[0m 1/0\n",
	} {
		if !strings.Contains(tb, want) {
			t.Errorf("traceback %q lacks %q", tb, want)
		}
	}
	if !strings.HasSuffix(tb, "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero") {
		t.Errorf("traceback ends %q", tb)
	}
	for _, l := range got {
		if l.is("stdout") && strings.Contains(l.str("text"), "after") {
			t.Fatalf("ran on after the error: %v", got)
		}
	}
	syntax := find(f.run(code("x = (")), "error")
	if syntax.str("name") != "SyntaxError" || !strings.Contains(syntax.str("traceback"), "In[2]") {
		t.Fatalf("syntax error: %v", syntax)
	}
}

func TestResultsFollowTheDisplayProtocol(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	got := f.run(code(`import struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

class Dot:
    def _repr_png_(self):
        ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")
    def _repr_html_(self):
        return "<b>dot</b>"
    def _repr_markdown_(self):
        return None

display(Dot())
Dot()`))
	var results []line
	for _, l := range got {
		if l.is("result") {
			results = append(results, l)
		}
	}
	if len(results) != 2 || results[0]["is_main_result"] != false || results[1]["is_main_result"] != true {
		t.Fatalf("results: %v", got)
	}
	for _, res := range results {
		png, err := base64.StdEncoding.DecodeString(res.str("png"))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("png: %v %v", res, err)
		}
		if res.str("html") != "<b>dot</b>" || !strings.Contains(res.str("text"), "Dot object") {
			t.Fatalf("formats: %v", res)
		}
		if _, ok := res["markdown"]; ok {
			t.Fatalf("a repr that returns None is left out: %v", res)
		}
	}
}

func TestEnvVarsLastOneExecution(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	got := f.run(map[string]any{"code": "import os; os.environ['ABX_TEST_VAR']", "env_vars": map[string]string{"ABX_TEST_VAR": "v1"}})
	if res := find(got, "result"); res.str("text") != "v1" {
		t.Fatalf("during: %v", got)
	}
	got = f.run(code("os.environ.get('ABX_TEST_VAR') is None"))
	if res := find(got, "result"); res.str("text") != "True" {
		t.Fatalf("after: %v", got)
	}
}

func TestRequestErrors(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	for _, c := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/execute", `{"code":"1","context_id":"a","language":"python"}`, 400, "Only one of context_id or language can be provided"},
		{"POST", "/execute", `{"code":"1","context_id":"nope"}`, 404, "Context nope not found"},
		{"POST", "/execute", `{"code":"1","language":"java"}`, 500, "Failed to create context: no java kernel in the emulator (it has python, javascript, typescript and bash)"},
		{"POST", "/contexts/nope/restart", ``, 404, "Context nope not found"},
		{"DELETE", "/contexts/nope", ``, 404, "Context nope not found"},
		{"POST", "/contexts", `{"language":"r"}`, 500, "Failed to create context: no r kernel in the emulator (it has python, javascript, typescript and bash)"},
		{"POST", "/contexts", `{"cwd":"no/such/dir"}`, 500, "Failed to set working directory"},
		{"POST", "/contexts", `{"cwd":"/no/such/dir"}`, 500, "Failed to set working directory"},
		{"GET", "/nothing", ``, 404, `{"detail":"Not Found"}`},
	} {
		if status, body := f.do(c.method, c.path, c.body); status != c.status || body != c.want {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.path, status, body, c.status, c.want)
		}
	}
	if res := find(f.run(map[string]any{"code": "1+1", "language": " Python "}), "result"); res.str("text") != "2" {
		t.Fatalf("language python: %v", res)
	}
}

func TestContexts(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	if err := os.MkdirAll(filepath.Join(f.home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	list := func() map[string]string {
		status, body := f.do("GET", "/contexts", "")
		var cs []struct{ ID, Language, Cwd string }
		if err := json.Unmarshal([]byte(body), &cs); status != 200 || err != nil {
			t.Fatalf("list: %d %s", status, body)
		}
		out := map[string]string{}
		for _, c := range cs {
			out[c.ID] = c.Language + " " + c.Cwd
		}
		return out
	}
	// The default python and javascript contexts are listed before use, as
	// the real server starts them.
	before := list()
	langs := []string{}
	for _, v := range before {
		langs = append(langs, v)
	}
	slices.Sort(langs)
	if !slices.Equal(langs, []string{"javascript /home/user", "python /home/user"}) {
		t.Fatalf("the default contexts: %v", before)
	}
	cwd := find(f.run(code("import os; os.getcwd()")), "result")
	if cwd.str("text") != f.cwd {
		t.Fatalf("default cwd %v, want %s", cwd, f.cwd)
	}

	id := f.createContext(`{"cwd":"proj"}`)
	if cwd := find(f.run(inContext(id, "import os; os.getcwd()")), "result"); cwd.str("text") != filepath.Join(f.cwd, "proj") {
		t.Fatalf("cwd: %v", cwd)
	}
	after := list()
	if len(after) != 3 || after[id] != "python proj" {
		t.Fatalf("list: %v", after)
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("default contexts: %v then %v", before, after)
		}
	}

	f.run(inContext(id, "y = 1"))
	if status, body := f.do("POST", "/contexts/"+id+"/restart", ""); status != 200 || body != "null" {
		t.Fatalf("restart: %d %s", status, body)
	}
	got := f.run(inContext(id, "y"))
	if e := find(got, "error"); e.str("name") != "NameError" || count(got) != 1 {
		t.Fatalf("after restart: %v", got)
	}

	if status, body := f.do("DELETE", "/contexts/"+id, ""); status != 200 || body != "null" {
		t.Fatalf("delete: %d %s", status, body)
	}
	if _, ok := list()[id]; ok {
		t.Fatal("deleted context listed")
	}
	if status, _ := f.do("POST", "/execute", `{"code":"1","context_id":"`+id+`"}`); status != 404 {
		t.Fatalf("execute in deleted context: %d", status)
	}
}

func TestRestartEndsTheRunningExecution(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	id := f.createContext(`{}`)
	ls := f.open(context.Background(), inContext(id, "import time\nwhile True: time.sleep(0.01)"))
	if l := ls.next(); !l.is("number_of_executions") {
		t.Fatalf("first line: %v", l)
	}
	if status, _ := f.do("POST", "/contexts/"+id+"/restart", ""); status != 200 {
		t.Fatalf("restart: %d", status)
	}
	got := ls.rest()
	// The real server closes its socket to the kernel before restarting it.
	if e := find(got, "error"); e.str("name") != "UnexpectedEndOfExecution" {
		t.Fatalf("running execution: %v", got)
	}
}

// The real server has no authentication: a request without a token is
// served, one with a token is logged with it.
func TestNoTokenIsAskedFor(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	for _, c := range []struct{ method, path, body, want string }{
		{"GET", "/health", "", `"OK"`},
		{"POST", "/contexts", `{}`, `"language":"python"`},
		{"GET", "/contexts", "", `"id"`},
	} {
		req, err := http.NewRequest(c.method, f.url+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), c.want) {
			t.Errorf("%s %s without a token: %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}
	if status, _ := f.do("GET", "/contexts", ""); status != 200 {
		t.Fatalf("with a token: %d", status)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 4 || reqs[3].Header.Get("X-Access-Token") != token {
		t.Fatalf("log: %+v", reqs)
	}
}

func TestDisconnectLetsTheCodeRunOn(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	f.run(code("n = 5"))
	ctx, cancel := context.WithCancel(context.Background())
	ls := f.open(ctx, code("import time; time.sleep(0.3); n = 6"))
	if l := ls.next(); !l.is("number_of_executions") {
		t.Fatalf("first line: %v", l)
	}
	cancel()
	// This waits its turn, behind the cell the client left, which ran to
	// its end.
	got := f.run(code("n"))
	if res := find(got, "result"); res.str("text") != "6" || count(got) != 3 {
		t.Fatalf("after the disconnect: %v", got)
	}
}

func TestCloseKillsTheKernels(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	marker := "6012." + strconv.Itoa(os.Getpid())
	got := f.run(code(`import subprocess; sleeper = subprocess.Popen(["sleep", "` + marker + `"])`))
	if e := find(got, "error"); e != nil {
		t.Fatalf("start a sleeper: %v", e)
	}
	// The sleeper has been exec'd when Popen returns; its /proc entry may
	// take a moment to read as such on a loaded machine.
	for deadline := time.Now().Add(time.Minute); !running(marker); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			// What the kernel knows of it tells a sleeper that died from one
			// that is not seen.
			got := f.run(code(`print(sleeper.pid, sleeper.poll())`))
			t.Fatalf("the sleeper is not running: pid and status in the kernel: %q", find(got, "stdout").str("text"))
		}
	}
	f.srv.Close()
	// Whatever the kernel started ends with it (in the sandbox's view,
	// with the kernel's PID namespace; else with its process group).
	for deadline := time.Now().Add(time.Minute); running(marker); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s still running", marker)
		}
	}
}

// running reports whether a live process has marker in its command line.
func running(marker string) bool {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if err != nil {
			continue
		}
		if fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(fields) > 0 && fields[0] != "Z" {
			return true
		}
	}
	return false
}

func TestKeepalive(t *testing.T) {
	t.Parallel()
	f := start(t, Options{Keepalive: 20 * time.Millisecond})
	ls := f.open(context.Background(), code("import time; time.sleep(0.3)"))
	seen := false
	for {
		l := ls.next()
		seen = seen || l.is("keepalive")
		if l.is("end_of_execution") {
			break
		}
	}
	if !seen {
		t.Fatal("no keepalive")
	}
}
