//go:build unix

package mcp

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/mcpserver"
)

func TestListenIsCheckedBeforeAnythingIsBound(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	for _, tc := range []struct {
		name string
		opts ServeOptions
		want string
	}{
		{"remote address", ServeOptions{Listen: "0.0.0.0:8931"}, "not a loopback address"},
		{"every interface", ServeOptions{Listen: ":8931"}, "not a loopback address"},
		{"no port", ServeOptions{Listen: "127.0.0.1"}, "give HOST:PORT"},
		{"allow-remote alone", ServeOptions{AllowRemote: true}, "--allow-remote needs --listen"},
		{"token alone", ServeOptions{Token: "0123456789abcdef"}, "--token needs --listen"},
		{"short token", ServeOptions{Listen: "127.0.0.1:0", Token: "short"}, "at least 16 characters"},
	} {
		err := tc.opts.checkListen(func(k string) string { return env[k] })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && abxerr.Exit(err, false) != 2 {
			t.Errorf("%s: exit %d, want 2", tc.name, abxerr.Exit(err, false))
		}
	}
	ok := ServeOptions{Listen: "0.0.0.0:0", AllowRemote: true}
	if err := ok.checkListen(func(k string) string { return env[k] }); err != nil || !ok.tokenGenerated || len(ok.Token) < 40 {
		t.Errorf("--allow-remote: %v, token %q generated %v", err, ok.Token, ok.tokenGenerated)
	}
	fromEnv := ServeOptions{Listen: "localhost:0"}
	if err := fromEnv.checkListen(func(k string) string { return map[string]string{TokenVariable: "from-the-variable-0123"}[k] }); err != nil ||
		fromEnv.Token != "from-the-variable-0123" || fromEnv.tokenGenerated {
		t.Errorf("token from %s: %v, %q", TokenVariable, err, fromEnv.Token)
	}
}

// lines hands each line written to it to a channel: the server's stderr,
// read while it serves.
type lines struct {
	w *io.PipeWriter
	c chan string
}

func newLines() *lines {
	r, w := io.Pipe()
	l := &lines{w: w, c: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.c <- sc.Text()
		}
		close(l.c)
	}()
	return l
}

func (l *lines) Write(p []byte) (int, error) { return l.w.Write(p) }

// serveOnHTTP starts `abx mcp serve --listen 127.0.0.1:0` (token made at
// start) with this environment and returns its URL and token.
func serveOnHTTP(t *testing.T, env map[string]string) (url, token string) {
	t.Helper()
	return serveOnHTTPWith(t, env, func(*ServeOptions) {})
}

// serveOnHTTPWith is serveOnHTTP with the options set by set.
func serveOnHTTPWith(t *testing.T, env map[string]string, set func(*ServeOptions)) (url, token string) {
	t.Helper()
	f, _ := factorytest.NewFactory(false, env, "")
	errOut := newLines()
	f.IO.ErrOut = errOut
	opts := &ServeOptions{IO: f.IO, Factory: f, Listen: "127.0.0.1:0"}
	set(opts)
	if err := opts.checkListen(f.Getenv); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		_ = errOut.w.Close()
	})
	for line := range errOut.c {
		if u, ok := strings.CutPrefix(line, "Serving MCP on "); ok {
			url = u
		}
		if tok, ok := strings.CutPrefix(line, "Bearer token (shown once): "); ok {
			token = tok
			break
		}
	}
	if url == "" || token == "" {
		t.Fatalf("no URL (%q) or token (%q) on stderr", url, token)
	}
	return url, token
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestServeOverHTTPWithTheToken(t *testing.T) {
	t.Parallel()
	url, token := serveOnHTTP(t, emulator(t))
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("URL %q", url)
	}

	// Without the token, or with another: 401 and a Bearer challenge.
	for _, auth := range []string{"", "Bearer nope-nope-nope-nope", "Basic " + token, "Bearer " + token + "x"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: %d %q, want 401 with a Bearer challenge", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(string(body), token) {
			t.Errorf("the 401 shows the token: %s", body)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if _, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		t.Error("a client without the token connected")
	}

	// With it: the tools, end to end.
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	if got := toolNames(t, cs); len(got) != len(mcpserver.Tools()) {
		t.Errorf("%d tools over HTTP: %v", len(got), got)
	}
	id := create(t, cs, "base")
	var x execResult
	res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "echo over-http; exit 3"}, &x)
	if res.IsError || x.ExitCode != 3 || x.Stdout != "over-http\n" {
		t.Errorf("exec over HTTP: %+v %s", x, texts(res))
	}
	if res := call(t, cs, "sandbox_kill", map[string]any{"sandbox_id": id}, nil); res.IsError {
		t.Errorf("kill: %s", texts(res))
	}
}
