package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// The key of the tests' clusters: it must appear nowhere.
const liveKey = "sk-live-7f3a9c1e5b"

// cluster is a shell configured for a cluster: the key in its variable,
// a domain and a retry count.
var cluster = map[string]string{
	"ABX_PROVIDER":                    "alicloud-container",
	"ABX_ALICLOUD_CONTAINER_DOMAIN":   "agents.example.com",
	"ABX_ALICLOUD_CONTAINER_API_KEY":  liveKey,
	"ABX_ALICLOUD_CONTAINER_RETRIES":  "5",
	"ABX_ALICLOUD_CONTAINER_PROTOCOL": "native",
}

// emulatorShell is the environment 'abx emulator exec' gives its command.
var emulatorShell = map[string]string{
	"ABX_PROVIDER":                    "alicloud-container",
	"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
	"ABX_ALICLOUD_CONTAINER_BASE_URL": "http://127.0.0.1:41234/kruise/api",
	"ABX_ALICLOUD_CONTAINER_API_KEY":  "abx_emu_Q2VYH7K4MZT5",
}

const abxPath = "/opt/abx/bin/abx"

// runConfigCmd runs `abx [global...] mcp config argv` in env, with this
// abx at abxPath; global are the provider's flags, as NAME VALUE pairs.
func runConfigCmd(t *testing.T, env map[string]string, global []string, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	f, s := factorytest.NewFactory(false, env, "")
	for i := 0; i+1 < len(global); i += 2 {
		if err := f.Flags.Set(global[i], global[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	cmd := NewCmdConfig(f, func(ctx context.Context, o *ConfigOptions) error {
		o.Self = func() string { return abxPath }
		return runConfig(ctx, o)
	})
	err = cmdtest.Exec(cmd, argv...)
	return s.Out.String(), s.ErrOut.String(), err
}

// noSecret says the key appears nowhere, not even redacted: the block
// never held it.
func noSecret(t *testing.T, key string, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if strings.Contains(text, key) || strings.Contains(text, "REDACTED") {
			t.Fatalf("the key, or its redaction, is printed:\n%s", text)
		}
	}
}

func TestNewCmdConfig(t *testing.T) {
	t.Parallel()
	type in struct {
		Host, Name, Command string
		Emulator            *bool
		Sandbox             string
		Tools               []string
		ReadOnly            bool
	}
	yes, no := true, false
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "defaults", Want: in{Host: "json", Name: "abx"}},
		{Name: "everything", Argv: []string{"--host", "vscode", "--name", "abx-one", "--command", "abx", "--emulator", "--sandbox", "sandbox/sb-1", "--tools", "files_read,files_list", "--read-only"},
			Want: in{Host: "vscode", Name: "abx-one", Command: "abx", Emulator: &yes, Sandbox: "sb-1", Tools: []string{"files_read", "files_list"}, ReadOnly: true}},
		{Name: "not on the emulator", Argv: []string{"--host", "claude-code", "--emulator=false"}, Want: in{Host: "claude-code", Name: "abx", Emulator: &no}},
		{Name: "unknown host", Argv: []string{"--host", "zed"}, WantErr: `unknown --host "zed": use claude, claude-code, cursor, json, vscode`},
		{Name: "empty name", Argv: []string{"--name", ""}, WantErr: "empty --name"},
		{Name: "unknown tool", Argv: []string{"--tools", "exec,nope"}, WantErr: `unknown tool "nope" in --tools`},
		{Name: "a writing tool read-only", Argv: []string{"--tools", "exec", "--read-only"}, WantErr: "--tools names exec, which is not read-only"},
		{Name: "a lifecycle tool pinned", Argv: []string{"--sandbox", "sb-1", "--tools", "sandbox_create"}, WantErr: "does not offer"},
		{Name: "bad sandbox ID", Argv: []string{"--sandbox", "a/b"}, WantErr: "invalid sandbox ID"},
		{Name: "argument", Argv: []string{"claude"}, WantErr: `config takes no arguments, got "claude"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdConfig(f, func(_ context.Context, o *ConfigOptions) error {
			*got = in{o.Host, o.Name, o.Command, o.Emulator, o.Sandbox, o.Tools, o.ReadOnly}
			return nil
		})
	})
}

func TestUnknownHostExitsTwoListingTheHosts(t *testing.T) {
	t.Parallel()
	_, _, err := runConfigCmd(t, cluster, nil, "--host", "zed")
	e := abxerr.From(err)
	if e.Code != abxerr.InvalidInput || e.ExitCode() != 2 {
		t.Fatalf("code %s exit %d, want %s exit 2", e.Code, e.ExitCode(), abxerr.InvalidInput)
	}
	if strings.Contains(e.Message, "\n") {
		t.Errorf("the error is more than one line: %q", e.Message)
	}
}

const clusterServers = `{
  "mcpServers": {
    "abx": {
      "command": "/opt/abx/bin/abx",
      "args": [
        "mcp",
        "serve"
      ],
      "env": {
        "ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com",
        "ABX_ALICLOUD_CONTAINER_PROTOCOL": "native",
        "ABX_ALICLOUD_CONTAINER_REQUEST_TIMEOUT": "45s",
        "ABX_ALICLOUD_CONTAINER_RETRIES": "5",
        "ABX_PROVIDER": "alicloud-container"
      }
    }
  }
}
`

const clusterVSCode = `{
  "servers": {
    "abx": {
      "type": "stdio",
      "command": "/opt/abx/bin/abx",
      "args": [
        "mcp",
        "serve"
      ],
      "env": {
        "ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com",
        "ABX_ALICLOUD_CONTAINER_PROTOCOL": "native",
        "ABX_ALICLOUD_CONTAINER_REQUEST_TIMEOUT": "45s",
        "ABX_ALICLOUD_CONTAINER_RETRIES": "5",
        "ABX_PROVIDER": "alicloud-container"
      }
    }
  }
}
`

// Each JSON host gets the provider and the settings from variables and
// flags with their values, defaults left out; the key is left out, and
// stderr says how the host's server gets it and where the host keeps the
// block.
func TestJSONHostsCarryTheSettingsButNeverTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, want, getsEnv, where string }{
		{"json", clusterServers, "Set it in the environment the host starts from", "Merge this into the mcpServers of your host's configuration file"},
		{"claude", clusterServers, "Claude Desktop passes its servers none of your shell's variables", "claude_desktop_config.json"},
		{"cursor", clusterServers, "Set it in the environment Cursor starts from", "~/.cursor/mcp.json"},
		{"vscode", clusterVSCode, "Set it in the environment VS Code starts from", ".vscode/mcp.json"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			t.Parallel()
			out, errOut, err := runConfigCmd(t, cluster, []string{"request-timeout", "45s"}, "--host", tc.host)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tc.want)
			}
			if !json.Valid([]byte(out)) {
				t.Errorf("not JSON:\n%s", out)
			}
			noSecret(t, liveKey, out, errOut)
			note := "note: ABX_ALICLOUD_CONTAINER_API_KEY is not printed. " + tc.getsEnv
			if !strings.Contains(errOut, note) || !strings.Contains(errOut, "--api-key-file PATH") {
				t.Errorf("stderr does not say %q, and the key file:\n%s", note, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, tc.where) {
				t.Errorf("the last line of stderr %q does not say where the host keeps it (%s)", last, tc.where)
			}
		})
	}
}

// The claude-code form is one shell line, its words quoted; the note on
// the key is a comment above it. serve's flags are passed on.
func TestClaudeCodeLineIsQuotedAndPassesServeFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	for k, v := range cluster {
		env[k] = v
	}
	env["ABX_ALICLOUD_CONTAINER_DOMAIN"] = "it's here"
	out, errOut, err := runConfigCmd(t, env, nil, "--host", "claude-code", "--name", "abx one",
		"--sandbox", "sb-1", "--tools", "files_read,files_list", "--read-only")
	if err != nil {
		t.Fatal(err)
	}
	want := "# ABX_ALICLOUD_CONTAINER_API_KEY is not printed. Claude Code passes its environment to the servers it starts: export it in the shell that runs claude." +
		" Or give the key in a file, --api-key-file PATH, and run abx mcp config again.\n" +
		`claude mcp add 'abx one' -e 'ABX_ALICLOUD_CONTAINER_DOMAIN=it'\''s here' -e ABX_ALICLOUD_CONTAINER_PROTOCOL=native` +
		` -e ABX_ALICLOUD_CONTAINER_RETRIES=5 -e ABX_PROVIDER=alicloud-container` +
		" -- /opt/abx/bin/abx mcp serve --sandbox sb-1 --tools files_read,files_list --read-only\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	noSecret(t, liveKey, out, errOut)
	if strings.Contains(errOut, "is not printed") {
		t.Errorf("the note on the key is on stderr as well as in the block:\n%s", errOut)
	}
	if !strings.Contains(errOut, "~/.claude.json") {
		t.Errorf("stderr does not say where claude keeps it:\n%s", errOut)
	}
}

// A key file is given by its absolute path; the key it holds appears
// nowhere, and there is nothing to say about it.
func TestKeyFileIsGivenByItsPath(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(keyFile, []byte(liveKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com"}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		global []string
	}{
		{"by its variable", map[string]string{"ABX_ALICLOUD_CONTAINER_API_KEY_FILE": keyFile}, nil},
		{"by its flag", nil, []string{"api-key-file", keyFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			for k, v := range tc.env {
				e[k] = v
			}
			out, errOut, err := runConfigCmd(t, e, tc.global, "--host", "cursor")
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com",
				"ABX_ALICLOUD_CONTAINER_API_KEY_FILE": keyFile}
			if env := got.MCPServers["abx"].Env; len(env) != len(want) || env["ABX_ALICLOUD_CONTAINER_API_KEY_FILE"] != keyFile {
				t.Errorf("env %v, want %v", env, want)
			}
			noSecret(t, liveKey, out, errOut)
			if strings.Contains(errOut, "not printed") || strings.Contains(errOut, "incomplete") {
				t.Errorf("stderr: %s", errOut)
			}
		})
	}
}

// The host has no stdin to give the key on.
func TestKeyFromStdinIsRefused(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com"}
	_, _, err := runConfigCmd(t, env, []string{"api-key-file", "-"})
	if e := abxerr.From(err); e.Code != abxerr.InvalidConfig || !strings.Contains(e.Message, "ABX_ALICLOUD_CONTAINER_API_KEY_FILE is '-' (stdin)") {
		t.Fatalf("error %v (%s)", err, e.Code)
	}
}

// A password in a URL is a secret too: the setting is left out by name.
func TestURLWithAPasswordIsLeftOut(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_API_KEY": liveKey,
		"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://me:hunter2-pass@api.example.com/kruise/api"}
	out, errOut, err := runConfigCmd(t, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "hunter2-pass", out, errOut)
	if strings.Contains(out, "BASE_URL") || !strings.Contains(errOut, "ABX_ALICLOUD_CONTAINER_BASE_URL is not printed") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

const emulatorServers = `{
  "mcpServers": {
    "abx": {
      "command": "/opt/abx/bin/abx",
      "args": [
        "emulator",
        "exec",
        "--",
        "/opt/abx/bin/abx",
        "mcp",
        "serve"
      ]
    }
  }
}
`

// With no provider, with the settings of an emulator (whose address dies
// with it), or when asked, the block starts the server under an emulator
// of its own; --emulator=false, or a loopback URL with a key of a
// cluster's (a port-forward), prints the settings.
func TestEmulatorForm(t *testing.T) {
	t.Parallel()
	forwarded := map[string]string{}
	for k, v := range emulatorShell {
		forwarded[k] = v
	}
	forwarded["ABX_ALICLOUD_CONTAINER_API_KEY"] = liveKey
	for _, tc := range []struct {
		name      string
		env       map[string]string
		argv      []string
		emulator  bool
		wantNote  string
		secretKey string
	}{
		{"no provider", nil, nil, true, "no provider is configured", ""},
		{"inside abx emulator exec", emulatorShell, nil, true, "the settings point at an emulator", emulatorShell["ABX_ALICLOUD_CONTAINER_API_KEY"]},
		{"asked", cluster, []string{"--emulator"}, true, "an emulator of its own", liveKey},
		{"refused", emulatorShell, []string{"--emulator=false"}, false, "ABX_ALICLOUD_CONTAINER_API_KEY is not printed", emulatorShell["ABX_ALICLOUD_CONTAINER_API_KEY"]},
		{"a port-forward", forwarded, nil, false, "ABX_ALICLOUD_CONTAINER_API_KEY is not printed", liveKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, err := runConfigCmd(t, tc.env, nil, tc.argv...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.emulator && out != emulatorServers {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, emulatorServers)
			}
			if !tc.emulator && !strings.Contains(out, `"ABX_ALICLOUD_CONTAINER_BASE_URL": "http://127.0.0.1:41234/kruise/api"`) {
				t.Errorf("stdout does not carry the settings:\n%s", out)
			}
			if !strings.Contains(errOut, tc.wantNote) {
				t.Errorf("stderr does not say %q:\n%s", tc.wantNote, errOut)
			}
			if tc.secretKey != "" {
				noSecret(t, tc.secretKey, out, errOut)
			}
		})
	}
	out, _, err := runConfigCmd(t, nil, nil, "--host", "claude-code", "--name", "abx-emulator", "--read-only")
	if want := "claude mcp add abx-emulator -- /opt/abx/bin/abx emulator exec -- /opt/abx/bin/abx mcp serve --read-only\n"; err != nil || out != want {
		t.Errorf("claude-code on the emulator: %q, %v; want %q", out, err, want)
	}
}

// --command names what the host starts, in both forms.
func TestCommandReplacesThisAbx(t *testing.T) {
	t.Parallel()
	out, _, err := runConfigCmd(t, nil, nil, "--host", "claude-code", "--command", "abx")
	if want := "claude mcp add abx -- abx emulator exec -- abx mcp serve\n"; err != nil || out != want {
		t.Errorf("%q, %v; want %q", out, err, want)
	}
}

func TestSelfIsAnAbsolutePath(t *testing.T) {
	t.Parallel()
	if p := self(); !filepath.IsAbs(p) {
		t.Errorf("self() = %q, not absolute", p)
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"abx":                  "abx",
		"A=b/c:d,e@f%g+h.i-j_": "A=b/c:d,e@f%g+h.i-j_",
		"":                     "''",
		"a b":                  "'a b'",
		"it's":                 `'it'\''s'`,
		"$HOME":                "'$HOME'",
		"a\nb":                 "'a\nb'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
