package codeinterp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// serve starts a server answering with h and a client of it, with the
// headers a provider hands over.
func serve(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	hdr := http.Header{}
	hdr.Set("E2b-Sandbox-Id", "sbx-1")
	hdr.Set("E2b-Sandbox-Port", "49999")
	hdr.Set("X-Access-Token", "tok")
	hdr.Set("X-API-Key", "must-not-leave")
	return New(ts.Client(), Endpoint{URL: ts.URL + "/", Header: hdr})
}

func reply(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n")
		}
	}
}

func codeOf(t *testing.T, err error) abxerr.Code {
	t.Helper()
	var e *abxerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an abx error", err, err)
	}
	return e.Code
}

func TestExecuteReadsEveryLineType(t *testing.T) {
	var got *http.Request
	var body Request
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		_ = json.NewDecoder(r.Body).Decode(&body)
		reply(
			`{"type":"number_of_executions","execution_count":7}`,
			`{"type":"stdout","text":"hello\n","timestamp":"2026-01-02T15:04:05.000001Z"}`,
			`{"type":"keepalive"}`,
			``,
			`{"type":"stderr","text":"careful\n","timestamp":"2026-01-02T15:04:05.5Z"}`,
			`{"type":"some_future_type","x":1}`,
			`{"type":"result","is_main_result":false,"png":"iVBORw0KGgo=","text":"<Figure>","extra":{}}`,
			`{"type":"result","is_main_result":true,"text":"42","json":{"a":1},"chart":{"type":"line"},"extra":{"application/x-thing":"v"}}`,
			`{"type":"error","name":"ValueError","value":"bad","traceback":"Traceback\nValueError: bad"}`,
			`{"type":"end_of_execution"}`,
			`{"type":"stdout","text":"after the end is never read"}`,
		)(w, r)
	})
	x := NewExecution()
	err := c.Execute(context.Background(), Request{Code: "x", ContextID: "ctx-1", EnvVars: map[string]string{"A": "1"}}, x.Add)
	if err != nil {
		t.Fatal(err)
	}
	if got.Method != "POST" || got.URL.Path != "/execute" {
		t.Errorf("request %s %s, want POST /execute", got.Method, got.URL.Path)
	}
	for k, want := range map[string]string{"E2b-Sandbox-Id": "sbx-1", "E2b-Sandbox-Port": "49999", "X-Access-Token": "tok",
		"Content-Type": "application/json", "User-Agent": "abx", "X-Api-Key": ""} {
		if v := got.Header.Get(k); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
	if body.Code != "x" || body.ContextID != "ctx-1" || body.Language != "" || body.EnvVars["A"] != "1" {
		t.Errorf("body = %+v", body)
	}
	if x.ExecutionCount != 7 || len(x.Logs.Stdout) != 1 || x.Logs.Stdout[0] != "hello\n" || x.Logs.Stderr[0] != "careful\n" {
		t.Errorf("execution = %+v", x)
	}
	if len(x.Results) != 2 || x.Results[0].IsMainResult || !x.Results[1].IsMainResult || x.Text() != "42" {
		t.Fatalf("results = %+v", x.Results)
	}
	if x.Results[0].Extra != nil {
		t.Errorf("an empty extra should be dropped: %v", x.Results[0].Extra)
	}
	var names []string
	for _, f := range x.Results[1].Formats() {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "json,chart,application/x-thing" {
		t.Errorf("formats = %v", names)
	}
	if x.Error == nil || x.Error.Name != "ValueError" || x.Error.Value != "bad" {
		t.Errorf("error = %+v", x.Error)
	}
	out, _ := json.Marshal(x)
	for _, want := range []string{`"isMainResult":true`, `"executionCount":7`, `"logs":{"stdout":["hello\n"]`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON %s lacks %s", out, want)
		}
	}
}

func TestEmptyExecutionEncodesLists(t *testing.T) {
	out, _ := json.Marshal(NewExecution())
	if string(out) != `{"results":[],"logs":{"stdout":[],"stderr":[]},"error":null}` {
		t.Errorf("got %s", out)
	}
}

func TestExecuteDeliversEachLineAsItArrives(t *testing.T) {
	release := make(chan struct{})
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"type":"stdout","text":"first"}`+"\n")
		w.(http.Flusher).Flush()
		<-release // the second line waits until the client has seen the first
		_, _ = io.WriteString(w, `{"type":"stdout","text":"second"}`+"\n"+`{"type":"end_of_execution"}`+"\n")
	})
	var seen []string
	err := c.Execute(context.Background(), Request{Code: "x"}, func(ev Event) error {
		seen = append(seen, ev.Stdout.Text)
		if ev.Stdout.Text == "first" {
			close(release)
		}
		return nil
	})
	if err != nil || strings.Join(seen, ",") != "first,second" {
		t.Fatalf("seen %v, err %v", seen, err)
	}
}

func TestCutStreamIsAnError(t *testing.T) {
	c := serve(t, reply(`{"type":"stdout","text":"partial"}`))
	err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil })
	if !errors.Is(err, ErrCut) || codeOf(t, err) != abxerr.Network {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "cut off") {
		t.Errorf("message %q does not say the output was cut", err)
	}

	// The last line may lack its newline; it still counts.
	c = serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"type":"stdout","text":"a"}`+"\n"+`{"type":"end_of_execution"}`)
	})
	if err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil }); err != nil {
		t.Fatalf("end without a newline: %v", err)
	}
}

func TestLongLines(t *testing.T) {
	big := strings.Repeat("A", 300<<10) // several reads of the 64 KiB buffer
	c := serve(t, reply(`{"type":"result","is_main_result":true,"png":"`+big+`"}`, `{"type":"end_of_execution"}`))
	x := NewExecution()
	if err := c.Execute(context.Background(), Request{Code: "x"}, x.Add); err != nil {
		t.Fatal(err)
	}
	if len(x.Results) != 1 || x.Results[0].PNG != big {
		t.Fatalf("long line not read whole")
	}

	c.maxLine = 100 << 10
	err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil })
	if codeOf(t, err) != abxerr.BadResponse || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadLine(t *testing.T) {
	c := serve(t, reply(`not json`, `{"type":"end_of_execution"}`))
	err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil })
	if codeOf(t, err) != abxerr.BadResponse {
		t.Fatalf("err = %v", err)
	}
}

func TestCallbackErrorStops(t *testing.T) {
	c := serve(t, reply(`{"type":"stdout","text":"a"}`, `{"type":"stdout","text":"b"}`, `{"type":"end_of_execution"}`))
	stop := errors.New("stop")
	n := 0
	err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d events", err, n)
	}
}

func TestCancelClosesTheRequest(t *testing.T) {
	closed := make(chan struct{})
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"type":"stdout","text":"running"}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // what the server sees when abx goes away
		close(closed)
	})
	ctx, cancel := context.WithCancel(context.Background())
	err := c.Execute(ctx, Request{Code: "x"}, func(Event) error { cancel(); return nil })
	if codeOf(t, err) != abxerr.Interrupted {
		t.Fatalf("err = %v", err)
	}
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never saw the request close")
	}
}

func TestStatusErrors(t *testing.T) {
	for status, want := range map[int]abxerr.Code{
		404: abxerr.NotFound, 400: abxerr.Rejected, 401: abxerr.Unauthorized, 403: abxerr.Forbidden,
		500: abxerr.Server, 502: abxerr.Server,
	} {
		c := serve(t, func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Context nope not found", status)
		})
		err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil })
		if codeOf(t, err) != want {
			t.Errorf("HTTP %d: code %s, want %s", status, codeOf(t, err), want)
		}
		if want := fmt.Sprintf("Context nope not found (HTTP %d)", status); !strings.Contains(err.Error(), want) {
			t.Errorf("HTTP %d: message %q lacks %q", status, err, want)
		}
	}
}

func TestContexts(t *testing.T) {
	var calls []string
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls = append(calls, r.Method+" "+r.URL.EscapedPath()+" "+string(body))
		switch {
		case r.Method == "GET":
			_, _ = io.WriteString(w, `[{"id":"a","language":"python","cwd":"/home/user"}]`)
		case r.Method == "POST" && r.URL.Path == "/contexts":
			_, _ = io.WriteString(w, `{"id":"b","language":"python","cwd":"/tmp"}`)
		case strings.Contains(r.URL.Path, "missing"):
			http.Error(w, "Context missing not found", 404)
		default:
			_, _ = io.WriteString(w, "null")
		}
	})
	ctx := context.Background()
	list, err := c.Contexts(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "a" {
		t.Fatalf("list %v, %v", list, err)
	}
	x, err := c.CreateContext(ctx, "python", "/tmp")
	if err != nil || x.ID != "b" || x.Cwd != "/tmp" {
		t.Fatalf("create %v, %v", x, err)
	}
	if _, err := c.CreateContext(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartContext(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteContext(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteContext(ctx, "missing"); codeOf(t, err) != abxerr.NotFound {
		t.Fatalf("delete missing: %v", err)
	}
	want := []string{
		"GET /contexts ",
		`POST /contexts {"language":"python","cwd":"/tmp"}`,
		`POST /contexts {}`,
		"POST /contexts/a%2Fb/restart ",
		"DELETE /contexts/a ",
		"DELETE /contexts/missing ",
	}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}

func TestCutInTheMiddleOfALine(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"type":"stdout","text":"a"}`+"\n"+`{"type":"result","png":"iVBOR`)
	})
	err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil })
	if !errors.Is(err, ErrCut) || codeOf(t, err) != abxerr.Network {
		t.Fatalf("err = %v", err)
	}
}

func TestContextCallsHaveADeadline(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(release) // before Close, which waits for the handler
	c := New(ts.Client(), Endpoint{URL: ts.URL, Timeout: 50 * time.Millisecond})
	if _, err := c.Contexts(context.Background()); codeOf(t, err) != abxerr.Timeout {
		t.Fatalf("err = %v", err)
	}
}
