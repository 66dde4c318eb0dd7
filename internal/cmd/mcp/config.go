package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/mcpserver"
	"github.com/abx-dev/abx/internal/output"
)

// ConfigOptions are the inputs of `abx mcp config`.
type ConfigOptions struct {
	IO *output.Streams
	// ProviderName is what --provider, ABX_PROVIDER or the profile names,
	// "" for none.
	ProviderName func() string
	// ProviderFromProfile tells whether the provider is the profile's
	// (neither --provider nor ABX_PROVIDER names one).
	ProviderFromProfile func() bool
	// Settings are the selected provider's, bound; stdin is left unread.
	Settings func() (*cmdutil.Settings, error)
	// Self is the path of this abx, as a host should start it.
	Self func() string

	// Host is the form printed (--host).
	Host string
	// Name is the server's entry in the host's configuration (--name).
	Name string
	// Command is what the host starts (--command); "" is Self.
	Command string
	// Emulator asks for the emulator's form (true) or the settings' form
	// (false); nil decides from the settings.
	Emulator *bool

	// serve's own flags, passed on when given.
	Sandbox  string
	Tools    []string
	ReadOnly bool
}

// NewCmdConfig builds `abx mcp config`.
func NewCmdConfig(f *cmdutil.Factory, runF func(context.Context, *ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO, ProviderName: f.ProviderName, Settings: f.Settings, Self: self,
		ProviderFromProfile: func() bool {
			fl := f.Flags.Lookup("provider")
			return (fl == nil || fl.Value.String() == "") && f.Getenv("ABX_PROVIDER") == ""
		}}
	var emulator bool
	cmd := &cobra.Command{
		Use:   "config [flags]",
		Short: "Print the configuration an agent host needs to start 'abx mcp serve'",
		Long: `Print the block an agent host needs to start 'abx mcp serve' with the provider's
current settings (--provider and the settings' flags, the variables), for --host
claude (Claude Desktop), claude-code (a 'claude mcp add' line), cursor, vscode or json
(the mcpServers block most hosts read, the default). stdout has the block alone; stderr
says where the host keeps it. abx writes no host's file.

The block names the profile in use (--profile NAME: its settings, and its key from its
store), then the provider and every setting given by a flag or a variable, with its
value. The API key never appears: a key file is given by its path (an absolute one);
a key given by its variable is left out, and stderr says how the host's server gets it.
The command is this abx by its absolute path, since a host's PATH is seldom the
shell's; --command names another (e.g. abx, for a file shared in a project).

With no provider configured, or settings that point at an emulator (whose address lasts
only as long as it runs), the block starts the server under an emulator of its own:
'abx emulator exec -- abx mcp serve'. --emulator asks for that form, --emulator=false for
the settings as they are. --sandbox, --tools and --read-only are passed on to serve
(docs/mcp.md).`,
		Example: `  abx mcp config --host claude-code
  abx --provider alicloud-container --api-key-file ~/.config/abx/api-key mcp config --host vscode
  abx mcp config --host cursor --emulator --read-only`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, ok := hosts[opts.Host]; !ok {
				return abxerr.New(abxerr.InvalidInput, "unknown --host %q: use %s", opts.Host, strings.Join(hostNames(), ", "))
			}
			if opts.Name == "" {
				return abxerr.New(abxerr.InvalidInput, "empty --name: the host needs a name for the server")
			}
			if cmd.Flags().Changed("emulator") {
				opts.Emulator = &emulator
			}
			if cmd.Flags().Changed("sandbox") {
				id, err := cmdutil.SandboxID(opts.Sandbox)
				if err != nil {
					return err
				}
				opts.Sandbox = id
			}
			if _, err := mcpserver.Offered(mcpserver.Options{Sandbox: opts.Sandbox, Tools: opts.Tools, ReadOnly: opts.ReadOnly}); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runConfig)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Host, "host", "json", "the host's form: "+strings.Join(hostNames(), ", "))
	fl.StringVar(&opts.Name, "name", "abx", "the server's name in the host's configuration")
	fl.StringVar(&opts.Command, "command", "", "the command the host starts (default: this abx's absolute path)")
	fl.BoolVar(&emulator, "emulator", false, "start the server under an emulator of its own (default: when no provider is configured or the settings point at an emulator)")
	fl.StringVar(&opts.Sandbox, "sandbox", "", "pass --sandbox ID on to serve")
	fl.StringSliceVar(&opts.Tools, "tools", nil, "pass --tools on to serve")
	fl.BoolVar(&opts.ReadOnly, "read-only", false, "pass --read-only on to serve")
	cmdutil.CompleteFlag(cmd, "host", cmdutil.Choices(hostNames()...))
	cmdutil.CompleteFlag(cmd, "tools", cmdutil.CommaList(allTools()))
	return cmdutil.NoJSON(cmd)
}

func allTools() []string {
	var names []string
	for _, t := range mcpserver.Tools() {
		names = append(names, t.Name)
	}
	return names
}

// leftOut is a variable the block leaves out for its secret, and the flag
// that would give it as a file instead ("" for none).
type leftOut struct{ env, fileFlag string }

// block is what a host needs to start the server, and what to tell the
// user beside it.
type block struct {
	name    string
	command string
	args    []string
	env     map[string]string
	// unset are the variables left out for their secrets.
	unset []leftOut
	// notes are for the user, whatever the host.
	notes []string
}

func runConfig(_ context.Context, opts *ConfigOptions) error {
	command := opts.Command
	if command == "" {
		command = opts.Self()
	}
	b := &block{name: opts.Name, command: command}
	if inTempDir(command) {
		b.notes = append(b.notes, fmt.Sprintf("%s is in a temporary directory (go run?): give --command the path of an installed abx", command))
	}
	serve := []string{"mcp", "serve"}
	if opts.Sandbox != "" {
		serve = append(serve, "--sandbox", opts.Sandbox)
	}
	if len(opts.Tools) > 0 {
		serve = append(serve, "--tools", strings.Join(opts.Tools, ","))
	}
	if opts.ReadOnly {
		serve = append(serve, "--read-only")
	}
	onEmulator, err := opts.onEmulator(b)
	if err != nil {
		return err
	}
	if onEmulator {
		if runtime.GOOS == "windows" {
			return abxerr.New(abxerr.InvalidInput, "the emulator runs on Linux and macOS only").
				WithHint("select a provider (--provider or ABX_PROVIDER) with its settings")
		}
		b.args = append([]string{"emulator", "exec", "--", command}, serve...)
		b.notes = append(b.notes, "each time the host starts the server, it gets an emulator of its own, empty, stopped with it (docs/emulator.md)")
	} else {
		b.args = serve
		if err := opts.settingsEnv(b); err != nil {
			return err
		}
	}
	h := hosts[opts.Host]
	var out bytes.Buffer
	for _, u := range b.unset {
		if h.comments {
			fmt.Fprintf(&out, "# %s\n", h.unsetNote(u))
		} else {
			b.notes = append(b.notes, h.unsetNote(u))
		}
	}
	if err := h.render(&out, b); err != nil {
		return err
	}
	// The block holds no secret; redacting anyway keeps it so should a
	// setting's value hold one by chance.
	if _, err := io.WriteString(opts.IO.Out, opts.IO.Secrets.Redact(out.String())); err != nil {
		return err
	}
	for _, n := range b.notes {
		_, _ = fmt.Fprintln(opts.IO.ErrOut, opts.IO.Safe("note: "+n))
	}
	_, _ = fmt.Fprintln(opts.IO.ErrOut, h.where)
	return nil
}

// onEmulator decides the form: the emulator's when asked, when no
// provider is configured, or when the settings point at an emulator.
func (opts *ConfigOptions) onEmulator(b *block) (bool, error) {
	if opts.Emulator != nil {
		return *opts.Emulator, nil
	}
	if opts.ProviderName() == "" {
		b.notes = append(b.notes, "no provider is configured (--provider or ABX_PROVIDER): the server runs on an emulator")
		return true, nil
	}
	st, err := opts.Settings()
	if err != nil {
		return false, err
	}
	if pointsAtEmulator(st) {
		b.notes = append(b.notes, "the settings point at an emulator, whose address lasts only as long as it runs: the server runs on one of its own (--emulator=false prints the settings as they are)")
		return true, nil
	}
	return false, nil
}

// emulatorKeyPrefix begins every key the emulator makes (internal/emulator).
// With an API URL on loopback it tells settings that point at an emulator:
// a cluster reached through a port-forward has a key of its own.
const emulatorKeyPrefix = "abx_emu_"

func pointsAtEmulator(st *cmdutil.Settings) bool {
	loopback, emulatorKey := false, false
	for _, s := range st.Bound {
		if s.Secret {
			emulatorKey = emulatorKey || strings.HasPrefix(s.Value, emulatorKeyPrefix)
			continue
		}
		if u, err := url.Parse(s.Value); err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopback(u.Hostname()) {
			loopback = true
		}
	}
	return loopback && emulatorKey
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// settingsEnv fills the block's variables from the provider's settings:
// its name and every setting a flag or a variable gave, with its value;
// a key file by its absolute path, since the host starts the server
// elsewhere; a secret, or a URL holding a password, by name alone.
func (opts *ConfigOptions) settingsEnv(b *block) error {
	st, err := opts.Settings()
	if err != nil {
		return err
	}
	b.env = map[string]string{}
	if st.Profile != "" {
		// The profile carries the provider, its settings and its key
		// (from its store, which the host's server reads as abx does):
		// the block names it rather than copying them.
		b.args = append([]string{"--profile", st.Profile}, b.args...)
		b.notes = append(b.notes, fmt.Sprintf("the server uses profile %s: what 'abx profile show %s' shows, its key from its store", st.Profile, st.Profile))
	}
	if st.Profile == "" || !opts.ProviderFromProfile() {
		b.env["ABX_PROVIDER"] = st.Descriptor.Name
	}
	for _, s := range st.Bound {
		// Sources as abx config names them: defaults the server has too.
		if s.Source != "flag" && s.Source != "env" || s.Value == "" {
			continue
		}
		switch {
		case s.FileOf != "" && s.Value == "-":
			return abxerr.New(abxerr.InvalidConfig, "%s is '-' (stdin), which carries the MCP protocol", s.Env).
				WithHint("give --%s a file's path, or the key by its variable", s.Flag)
		case s.FileOf != "":
			path, err := filepath.Abs(s.Value)
			if err != nil {
				return abxerr.New(abxerr.InvalidConfig, "cannot resolve %s %q: %v", s.Env, s.Value, err)
			}
			b.env[s.Env] = path
		case s.Secret || holdsPassword(s.Value):
			b.unset = append(b.unset, leftOut{env: s.Env, fileFlag: fileFlagOf(st, s.Key)})
		default:
			b.env[s.Env] = s.Value
		}
	}
	// What is missing is said as abx config says it; the host's server
	// would answer it to every tool call.
	cfg, err := st.Config(nil)
	if err != nil {
		return err
	}
	for _, p := range cfg.Problems() {
		b.notes = append(b.notes, "the configuration is incomplete: "+abxerr.From(p).Message)
	}
	return nil
}

// fileFlagOf is the flag of the setting that gives key as a file, "" for
// none.
func fileFlagOf(st *cmdutil.Settings, key string) string {
	for _, s := range st.Bound {
		if s.FileOf == key {
			return s.Flag
		}
	}
	return ""
}

func holdsPassword(v string) bool {
	if !strings.Contains(v, "@") {
		return false
	}
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// self is this abx as a host should start it: by the path its PATH gives
// it when that is the same file (a package manager's link outlives an
// upgrade, the file it points at does not), else where it runs from. A
// host's PATH is seldom the shell's, so the path is absolute.
func self() string {
	exe, err := os.Executable()
	if err != nil {
		return "abx"
	}
	if p, err := exec.LookPath("abx"); err == nil {
		if abs, err := filepath.Abs(p); err == nil && sameFile(abs, exe) {
			return abs
		}
	}
	return exe
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// inTempDir tells a binary `go run` built, which is gone once it ends.
func inTempDir(path string) bool {
	tmp := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	return strings.HasPrefix(filepath.Clean(path), tmp) && strings.Contains(path, string(filepath.Separator)+"go-build")
}
