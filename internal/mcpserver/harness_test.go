package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/mcpserver"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/secrets"
)

// over returns the options `abx mcp serve` gives the server for the
// sandbox-manager at baseURL with this key: the operations keep a
// sandbox's clients for ClientTTL, and the key and every token the
// operations read are secrets, as the command's settings and its
// Factory make them.
func over(t *testing.T, baseURL, key string) mcpserver.Options {
	t.Helper()
	known := &secrets.Set{}
	known.Add(key)
	d := alicloudcontainer.Descriptor()
	// The private protocol on the fake's own origin: no name to resolve.
	cfg := &alicloudcontainer.Config{BaseURL: baseURL, APIKey: key, Protocol: alicloudcontainer.ProtocolPrivate,
		EnvdPort: provider.EnvdPort, RequestTimeout: 30 * time.Second, Retries: 3, IdleTimeout: time.Minute}
	hc := httpclient.New(nil)
	svc := &sandboxes.Service{
		Descriptor: func() (*provider.Descriptor, error) { return d, nil },
		Provider: sync.OnceValues(func() (provider.Provider, error) {
			return d.Open(cfg, provider.Deps{HTTP: hc})
		}),
		HTTPClient: func() *http.Client { return hc },
		Learned: func(ep *provider.Endpoint) {
			for k, vs := range ep.Header {
				if httpclient.IsSecretHeader(k) {
					known.Add(vs...)
				}
			}
		},
	}
	return mcpserver.Options{Version: "test", Ready: svc.Ready, Sandboxes: svc.Keeping(mcpserver.ClientTTL), Secrets: known}
}

// unconfigured are the options of a server whose provider is not set up:
// it lists its tools, and Ready refuses every call.
func unconfigured() mcpserver.Options {
	return mcpserver.Options{Version: "test", Ready: func() error {
		return abxerr.New(abxerr.InvalidConfig, "no provider is set up")
	}}
}

// serve serves a server with these options over the SDK's in-memory
// transport and returns a client session of it, closed when the test
// ends.
func serve(t *testing.T, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	return serveTo(t, opts, nil)
}

// serveTo is serve for a client with these options.
func serveTo(t *testing.T, opts mcpserver.Options, client *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := t.Context()
	done := make(chan error, 1)
	go func() { done <- mcpserver.New(opts).Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, client).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		// The test's context ends before its cleanups: a session that
		// ended with it ended as asked.
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("serve: %v", err)
		}
	})
	return cs
}

// call calls a tool and decodes its structured result into out (nil:
// none).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func texts(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mustFail says a result is a tool error holding want.
func mustFail(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error with %q, got %s", want, texts(res))
	}
	if got := texts(res); !strings.Contains(got, want) {
		t.Fatalf("tool error %q does not hold %q", got, want)
	}
}

// create creates a sandbox from template and returns its ID.
func create(t *testing.T, cs *mcp.ClientSession, template string) string {
	t.Helper()
	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	if res := call(t, cs, "sandbox_create", map[string]any{"template": template}, &sb); res.IsError || sb.SandboxID == "" {
		t.Fatalf("create: %s", texts(res))
	}
	return sb.SandboxID
}

// toolNames lists the tools a session offers.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// everything is a result as the host receives it: every content and the
// structured content, encoded.
func everything(t *testing.T, res any) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type execResult struct {
	ExitCode  int    `json:"exitCode"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
}

// probe tells whether the process whose pid is in pidfile runs: alive,
// gone, or none (no pid yet).
func probe(t *testing.T, cs *mcp.ClientSession, id, pidfile string) string {
	t.Helper()
	var x execResult
	res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "test -s " + pidfile +
		" || { echo none; exit; }; kill -0 $(cat " + pidfile + ") 2>/dev/null && echo alive || echo gone"}, &x)
	if res.IsError {
		t.Fatalf("probe: %s", texts(res))
	}
	return strings.TrimSpace(x.Stdout)
}
