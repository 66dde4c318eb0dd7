//go:build unix

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/mcpserver"
	"github.com/abx-dev/abx/internal/secrets"
)

// What the server does with its options is internal/mcpserver's to test;
// here, what the command line makes of argv, the environment and the
// Factory, and how it serves.

// emulator returns the environment of a fresh emulated cluster.
func emulator(t *testing.T) map[string]string {
	t.Helper()
	_, env := emutest.Cluster(t)
	env["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	return env
}

// connect serves `abx mcp serve` over the SDK's in-memory transport with
// this environment and returns a client session of it.
func connect(t *testing.T, env map[string]string) *mcp.ClientSession {
	t.Helper()
	f, _ := factorytest.NewFactory(false, env, "")
	st, ct := mcp.NewInMemoryTransports()
	opts := &ServeOptions{IO: f.IO, Factory: f, Transport: st, MaxOutput: mcpserver.DefaultMaxOutput}
	ctx := t.Context()
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		if err := <-done; err != nil {
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

type execResult struct {
	ExitCode  int    `json:"exitCode"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
}

func TestNewCmdServe(t *testing.T) {
	t.Parallel()
	type in struct {
		MaxOutput              int
		Sandbox                string
		Tools                  []string
		ReadOnly               bool
		Listen, Token          string
		AllowRemote, Generated bool
	}
	const tok = "0123456789abcdef"
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "defaults", Want: in{MaxOutput: mcpserver.DefaultMaxOutput}},
		{Name: "pinned, some tools", Argv: []string{"--sandbox", "sandbox/sb-1", "--tools", "exec,files_read", "--max-output", "2048"},
			Want: in{MaxOutput: 2048, Sandbox: "sb-1", Tools: []string{"exec", "files_read"}}},
		{Name: "read-only", Argv: []string{"--read-only", "--tools", "files_list"},
			Want: in{MaxOutput: mcpserver.DefaultMaxOutput, Tools: []string{"files_list"}, ReadOnly: true}},
		{Name: "listen", Argv: []string{"--listen", "127.0.0.1:8931", "--token", tok},
			Want: in{MaxOutput: mcpserver.DefaultMaxOutput, Listen: "127.0.0.1:8931", Token: tok}},
		{Name: "listen, token from the variable", Argv: []string{"--listen", "localhost:0"}, Env: map[string]string{TokenVariable: "from-the-variable-0123"},
			Want: in{MaxOutput: mcpserver.DefaultMaxOutput, Listen: "localhost:0", Token: "from-the-variable-0123"}},
		{Name: "remote", Argv: []string{"--listen", "0.0.0.0:8931", "--allow-remote", "--token", tok},
			Want: in{MaxOutput: mcpserver.DefaultMaxOutput, Listen: "0.0.0.0:8931", Token: tok, AllowRemote: true}},
		{Name: "max-output too small", Argv: []string{"--max-output", "1023"}, WantErr: "invalid --max-output 1023: between 1024 and 67108864 bytes"},
		{Name: "max-output too large", Argv: []string{"--max-output", "67108865"}, WantErr: "invalid --max-output 67108865"},
		{Name: "remote without allow-remote", Argv: []string{"--listen", "0.0.0.0:8931"}, WantErr: "not a loopback address"},
		{Name: "argument", Argv: []string{"stdio"}, WantErr: `takes no arguments, got "stdio"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdServe(f, func(_ context.Context, o *ServeOptions) error {
			*got = in{o.MaxOutput, o.Sandbox, o.Tools, o.ReadOnly, o.Listen, o.Token, o.AllowRemote, o.tokenGenerated}
			return nil
		})
	})
}

func TestServeRefusesBadToolsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tools", "exec,nope"}, `unknown tool "nope" in --tools: the tools are sandbox_create, `},
		{[]string{"--read-only", "--tools", "exec"}, "exec, which is not read-only"},
		{[]string{"--sandbox", "sb-1", "--tools", "sandbox_kill"}, "sandbox_kill, which a server pinned with --sandbox does not offer"},
		{[]string{"--sandbox", "bad/id"}, "bad/id"},
	} {
		f, _ := factorytest.NewFactory(false, nil, "")
		ran := false
		cmd := NewCmdServe(f, func(_ context.Context, _ *ServeOptions) error { ran = true; return nil })
		cmd.SetArgs(tc.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		var e *abxerr.Error
		if !errors.As(err, &e) || e.Code.ExitCode() != abxerr.ExitUsage || !strings.Contains(e.Message, tc.want) || ran {
			t.Errorf("%v: %v, want exit 2 with %q", tc.args, err, tc.want)
		}
	}
}

// serve's help names every tool the server has (what a host is told at
// initialization is the server's: internal/mcpserver).
func TestServeHelpNamesTheTools(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, nil, "")
	long := NewCmdServe(f, nil).Long
	for _, tool := range mcpserver.Tools() {
		if !regexp.MustCompile(`\b` + tool.Name + `\b`).MatchString(long) {
			t.Errorf("mcp serve --help does not name %s", tool.Name)
		}
	}
}

// The server is given what the flags said, the Factory's operations
// (keeping clients ClientTTL) and its secrets: once the provider is
// ready, the key the environment gave is one of them.
func TestServeGivesTheServerTheFactorysOperationsAndSecrets(t *testing.T) {
	t.Parallel()
	const key = "sk-from-the-environment-0123"
	f, _ := factorytest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                   "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_DOMAIN":  "agents.example.com",
		"ABX_ALICLOUD_CONTAINER_API_KEY": key,
	}, "")
	opts := &ServeOptions{IO: f.IO, Factory: f, MaxOutput: 2048, Sandbox: "sb-1", Tools: []string{"exec"}, ReadOnly: true,
		ProgressEvery: time.Second}
	got := opts.serverOptions()
	if got.Version != meta.BuildInfo().Version || got.Sandbox != "sb-1" || !slices.Equal(got.Tools, []string{"exec"}) || !got.ReadOnly ||
		got.MaxOutput != 2048 || got.ProgressEvery != time.Second {
		t.Errorf("options %+v", got)
	}
	if got.Sandboxes == nil || got.Sandboxes == f.Sandboxes || got.Sandboxes.KeepClients != mcpserver.ClientTTL {
		t.Errorf("the server's operations are not the Factory's, keeping clients %s", mcpserver.ClientTTL)
	}
	if got.Secrets != f.IO.Secrets {
		t.Error("the server does not redact the Factory's secrets")
	}
	if err := got.Ready(); err != nil {
		t.Fatal(err)
	}
	if red := got.Secrets.Redact("key " + key); red != "key "+secrets.Redacted {
		t.Errorf("once ready, the key from the environment is redacted as %q", red)
	}
}

// The provider is opened without reading stdin, which carries the
// protocol: a setting to be read from it is refused, saying what to do.
func TestServeReadsNoSettingFromStdin(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                        "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_DOMAIN":       "agents.example.com",
		"ABX_ALICLOUD_CONTAINER_API_KEY_FILE": "-",
	}, "")
	opts := &ServeOptions{IO: f.IO, Factory: f, MaxOutput: mcpserver.DefaultMaxOutput}
	err := opts.serverOptions().Ready()
	var e *abxerr.Error
	if !errors.As(err, &e) || e.Code != abxerr.InvalidConfig || !strings.Contains(e.Message, "carries the MCP protocol") || e.Hint == "" {
		t.Errorf("a key from stdin: %v", err)
	}
}

func TestMissingConfigurationIsAToolErrorSayingWhatToSet(t *testing.T) {
	t.Parallel()
	cs := connect(t, nil)
	mustFail(t, call(t, cs, "sandbox_list", nil, nil), "ABX_PROVIDER")
	mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": "sb-1", "command": "true"}, nil), "ABX_PROVIDER")
	// A provider without its settings: the error names the variable.
	cs = connect(t, map[string]string{"ABX_PROVIDER": "alicloud-container"})
	mustFail(t, call(t, cs, "sandbox_list", nil, nil), "ABX_ALICLOUD_CONTAINER_")
}
