package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioPeer is the host's end of a server on Stdio: what it writes is the
// server's stdin, what it reads the server's stdout.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	// held is closed when the hold tool has started; release lets it end.
	held, release chan struct{}
	// cancelled is closed when a held call saw its context end.
	cancelled chan struct{}
}

// serveStdio runs an SDK server with one tool, hold, on a Stdio
// transport over pipes, until ctx ends or its input does.
func serveStdio(ctx context.Context, t *testing.T, tr *Stdio) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.In, tr.Out = inR, outW
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1),
		held: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(p.held)
		select {
		case <-p.release:
			return text("released"), nil, nil
		case <-ctx.Done():
			close(p.cancelled)
			return nil, nil, ctx.Err()
		}
	})
	go func() {
		err := srv.Run(ctx, tr)
		_ = outW.Close()
		p.done <- err
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return p
}

func (p *stdioPeer) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		sent := make(chan error, 1)
		go func() { _, err := io.WriteString(p.in, l+"\n"); sent <- err }()
		select {
		case err := <-sent:
			if err != nil {
				p.t.Fatalf("writing %q: %v", l, err)
			}
		case <-time.After(time.Minute):
			p.t.Fatalf("the server did not read %q within a minute", l)
		}
	}
}

// answer is one JSON-RPC message the server wrote.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next reads the server's next line; it fails the test at the end of the
// output.
func (p *stdioPeer) next() answer {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading the server's answer: %v (got %q)", err, line)
	}
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		p.t.Fatalf("the server wrote a line that is not JSON: %q", line)
	}
	if a.JSONRPC != "2.0" {
		p.t.Fatalf("answer without jsonrpc 2.0: %q", line)
	}
	return a
}

// rest reads the server's output to its end.
func (p *stdioPeer) rest() string {
	p.t.Helper()
	b, err := io.ReadAll(p.out)
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// await waits for ch to close, failing the test after a minute.
func (p *stdioPeer) await(ch <-chan struct{}, what string) {
	p.t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		p.t.Fatalf("%s: not within a minute", what)
	}
}

func (p *stdioPeer) wait() error {
	p.t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(time.Minute):
		p.t.Fatal("the server did not end within a minute")
		return nil
	}
}

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callHold    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`
	listTools   = `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
)

func wantError(t *testing.T, a answer, code int, id, words string) {
	t.Helper()
	if a.Error == nil || a.Error.Code != code {
		t.Fatalf("want error %d, got %+v (result %s)", code, a.Error, a.Result)
	}
	if string(a.ID) != id {
		t.Errorf("error %d has id %s, want %s", code, a.ID, id)
	}
	if !strings.Contains(a.Error.Message, words) {
		t.Errorf("error %d says %q, want it to say %q", code, a.Error.Message, words)
	}
}

func wantResult(t *testing.T, a answer, id string) {
	t.Helper()
	if a.Error != nil || len(a.Result) == 0 {
		t.Fatalf("want a result for id %s, got error %+v", id, a.Error)
	}
	if string(a.ID) != id {
		t.Fatalf("result has id %s, want %s", a.ID, id)
	}
}

// A line that is not JSON is answered -32700 with a null id, as JSON-RPC
// says, and the server reads on; so is every other line it cannot take,
// each with the error that says why.
func TestStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	t.Parallel()
	p := serveStdio(t.Context(), t, &Stdio{MaxLine: 1024})
	p.send("not json")
	wantError(t, p.next(), -32700, "null", "Parse error")
	p.send(initialize)
	wantResult(t, p.next(), "1")
	p.send(initialized)

	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"`) // cut short
	wantError(t, p.next(), -32700, "null", "Parse error")
	p.send(`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`)
	wantError(t, p.next(), -32600, "7", "Invalid Request")
	p.send(`{"jsonrpc":"2.0","id":{"no":1},"method":"tools/list"}`)
	wantError(t, p.next(), -32600, "null", "Invalid Request")
	p.send(`[` + listTools + `]`)
	wantError(t, p.next(), -32600, "null", "batch")
	p.send(`{"jsonrpc":"2.0","id":"long","method":"tools/list","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`)
	wantError(t, p.next(), -32600, "null", "longer than 1024 bytes")

	// blank lines are no messages; a line may end with CR LF
	p.send("", "   ", strings.TrimSuffix(listTools, "\n")+"\r")
	wantResult(t, p.next(), "3")

	_ = p.in.Close()
	if err := p.wait(); err != nil {
		t.Errorf("the server ended with %v, want nil at the end of its input", err)
	}
}

// A call read just before the end of the input is answered, and only
// then does the server end.
func TestStdioFinishesTheCallsInFlightAtTheEndOfInput(t *testing.T) {
	t.Parallel()
	saw := make(chan struct{})
	p := serveStdio(t.Context(), t, &Stdio{sawEnd: func() { close(saw) }})
	p.send(initialize, initialized, callHold)
	wantResult(t, p.next(), "1")
	p.await(p.held, "the call starts")
	_ = p.in.Close()
	p.await(saw, "the server sees the end of its input")
	close(p.release) // only now: the call outlived the input's end
	a := p.next()
	select {
	case <-p.cancelled:
		t.Error("the call was cancelled at the end of the input")
	default:
	}
	wantResult(t, a, "2")
	if !strings.Contains(string(a.Result), "released") {
		t.Errorf("the call's result is %s", a.Result)
	}
	if rest := p.rest(); rest != "" {
		t.Errorf("after the last answer: %q", rest)
	}
	if err := p.wait(); err != nil {
		t.Errorf("the server ended with %v, want nil", err)
	}
}

// The end of the input waits for the calls only so long: past the bound,
// they are stopped and the server ends saying so.
func TestStdioDrainIsBounded(t *testing.T) {
	t.Parallel()
	p := serveStdio(t.Context(), t, &Stdio{Drain: time.Millisecond})
	p.send(initialize, initialized, callHold)
	wantResult(t, p.next(), "1")
	p.await(p.held, "the call starts")
	_ = p.in.Close()
	p.await(p.cancelled, "the call is cancelled")
	err := p.wait()
	var de *DrainError
	if !errors.As(err, &de) || de.Pending != 1 {
		t.Fatalf("the server ended with %v, want a DrainError of 1 call", err)
	}
}

// Ctrl-C (the server's context) stops the calls under way at once: their
// contexts end, as a host's cancellation ends them.
func TestStdioInterruptStopsTheCalls(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	p := serveStdio(ctx, t, &Stdio{})
	p.send(initialize, initialized, callHold)
	wantResult(t, p.next(), "1")
	p.await(p.held, "the call starts")
	cancel()
	p.await(p.cancelled, "the call is cancelled")
	if err := p.wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("the server ended with %v, want context.Canceled", err)
	}
}

// A call that reuses the id of one under way is refused, with a null id,
// and the first is still answered.
func TestStdioRefusesAnIDInUse(t *testing.T) {
	t.Parallel()
	p := serveStdio(t.Context(), t, &Stdio{})
	p.send(initialize, initialized, callHold)
	wantResult(t, p.next(), "1")
	p.await(p.held, "the call starts")
	p.send(strings.Replace(listTools, `"id":3`, `"id":2`, 1))
	wantError(t, p.next(), -32600, "null", "in use by a call under way")
	close(p.release)
	wantResult(t, p.next(), "2")
	_ = p.in.Close()
	if err := p.wait(); err != nil {
		t.Errorf("the server ended with %v", err)
	}
}

// A call before initialize is an invalid request in that state: a
// JSON-RPC error with a code JSON-RPC has (the SDK sends it without one,
// which is 0), saying what to send first. After initialize, calls work.
func TestStdioCallBeforeInitializeHasAnErrorCode(t *testing.T) {
	t.Parallel()
	p := serveStdio(t.Context(), t, &Stdio{})
	p.send(listTools)
	wantError(t, p.next(), -32600, "3", "send initialize first")
	p.send(initialize)
	wantResult(t, p.next(), "1")
	p.send(initialized, listTools)
	wantResult(t, p.next(), "3")
	_ = p.in.Close()
	if err := p.wait(); err != nil {
		t.Errorf("the server ended with %v", err)
	}
}
