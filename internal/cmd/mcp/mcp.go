// Package mcp holds `abx mcp`: serve, the Model Context Protocol server
// that offers the provider's sandboxes as tools to agent hosts
// (docs/mcp.md). The server itself is internal/mcpserver.
package mcp

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/mcpserver"
	"github.com/abx-dev/abx/internal/output"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	return []cmdutil.Verb{{Names: mcpNames, Group: cmdutil.GroupLocal, Build: NewCmdMCP}}
}

// mcpNames are the names of `abx mcp`, declared once: its command takes
// them, and its group's Verbs lists them.
var mcpNames = cmdutil.Names{"mcp"}

// NewCmdMCP builds `abx mcp`.
func NewCmdMCP(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   mcpNames.Use(""),
		Short: "Serve the sandboxes as tools to agents (Model Context Protocol)",
		Long: `Serve the provider's sandboxes as Model Context Protocol tools, for agent hosts such as
Claude Desktop, Claude Code, Cursor or VS Code: create, list, describe and kill sandboxes,
change their timeout, pause and resume them, run commands and code, list and signal
processes, read, write and list files (docs/mcp.md). 'abx mcp config' prints the block a
host's configuration needs to start it.`,
		Example: `  claude mcp add abx -- abx mcp serve
  abx emulator exec -- abx mcp serve
  abx mcp config --host claude`,
	}
	cmd.AddCommand(NewCmdServe(f, nil))
	cmd.AddCommand(NewCmdConfig(f, nil))
	return cmdutil.NoJSON(cmdutil.NoProvider(cmd))
}

// ServeOptions are the inputs of `abx mcp serve`.
type ServeOptions struct {
	IO      *output.Streams
	Factory *cmdutil.Factory

	MaxOutput int
	// Sandbox pins the server to one sandbox (--sandbox).
	Sandbox string
	// Tools are the only tools offered (--tools); none: all.
	Tools []string
	// ReadOnly offers only the read-only tools (--read-only).
	ReadOnly bool
	// Listen, when set, serves Streamable HTTP at this address instead of
	// stdio (--listen).
	Listen string
	// AllowRemote accepts a --listen address other than loopback.
	AllowRemote bool
	// Token is the bearer token HTTP requests must carry (--token,
	// ABX_MCP_TOKEN, or generated).
	Token string
	// Transport is what the server serves on; nil is stdio.
	Transport mcp.Transport
	// ProgressEvery is how often long calls send progress; 0 is the
	// server's default (tests make it short).
	ProgressEvery time.Duration

	tokenGenerated bool
	// bodyIdle bounds the wait for each read of a request's body over
	// HTTP; 0 is bodyIdleTimeout (tests make it short).
	bodyIdle time.Duration
}

// toolList names the server's tools as its own list has them
// (mcpserver.Tools), so that a tool the server gains is named here with
// no edit, wrapped as the help around it is.
func toolList() string {
	var words []string
	tools := mcpserver.Tools()
	for i, t := range tools {
		switch i {
		case len(tools) - 1:
			words = append(words, "and", t.Name, "(docs/mcp.md).")
		case len(tools) - 2:
			words = append(words, t.Name)
		default:
			words = append(words, t.Name+",")
		}
	}
	b := strings.Builder{}
	line := "Tools:"
	for _, w := range words {
		if len(line)+1+len(w) > 90 {
			b.WriteString(line + "\n")
			line = w
			continue
		}
		line += " " + w
	}
	b.WriteString(line)
	return b.String()
}

// NewCmdServe builds `abx mcp serve`.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve the MCP tools on stdio, as agent hosts spawn it",
		Long: `Serve the Model Context Protocol on stdin and stdout, as an agent host spawns it; stderr
carries abx's warnings. It reads the provider's configuration as every command does
(--provider and the settings' flags, variables, key file), and sends nothing before the
first tool call. A missing or bad configuration does not stop it: every tool answers a
tool error that says what to set, so that the host shows the reason.

` + toolList() + `

sandbox_run runs a whole job in a throwaway sandbox. --sandbox ID pins the server to one
sandbox: the tools that create, list, kill, pause or resume sandboxes, and sandbox_run,
are not offered, and the others take no sandbox_id (one given is refused as an unknown
argument). --tools offers only the tools it names, --read-only only the tools that change
nothing. Each stream of a command's output, and a file read, is capped at --max-output
bytes; exec kills a command after 10 minutes unless its timeout_seconds says otherwise. Errors are tool errors with abx's code (E3001 not found, E4001 the key was
refused, E8004 unsupported); secrets never appear in them.

One JSON-RPC message a line: a line that is not one is answered with a JSON-RPC error
(-32700 for a line that is not JSON) and the server reads on. It serves until the host
closes stdin, and answers the calls under way before it exits; Ctrl-C stops them.

--listen HOST:PORT serves the same tools over Streamable HTTP at http://HOST:PORT/mcp,
for hosts that connect to a URL rather than spawn a process. Every request must carry
"Authorization: Bearer TOKEN": the token is --token, or $ABX_MCP_TOKEN, or else made at
start and printed once on stderr. Only a loopback address is accepted unless
--allow-remote is given; put TLS in front of a remote one.`,
		Example: `  abx mcp serve
  claude mcp add abx -e ABX_PROVIDER=alicloud-container -- abx mcp serve
  abx emulator exec -- abx mcp serve
  abx mcp serve --sandbox "$id" --tools exec,files_read,files_write
  abx mcp serve --read-only
  abx mcp serve --listen 127.0.0.1:8931`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.MaxOutput < 1024 || opts.MaxOutput > 64<<20 {
				return abxerr.New(abxerr.InvalidInput, "invalid --max-output %d: between 1024 and %d bytes", opts.MaxOutput, 64<<20)
			}
			if cmd.Flags().Changed("sandbox") {
				id, err := cmdutil.SandboxID(opts.Sandbox)
				if err != nil {
					return err
				}
				opts.Sandbox = id
			}
			if _, err := mcpserver.Offered(opts.serverOptions()); err != nil {
				return err
			}
			if err := opts.checkListen(f.Getenv); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runServe)
		},
	}
	cmd.Flags().IntVar(&opts.MaxOutput, "max-output", mcpserver.DefaultMaxOutput, "cap, in bytes, of each output stream of exec and run_code and of a file read without max_bytes")
	cmd.Flags().StringVar(&opts.Sandbox, "sandbox", "", "pin the server to this sandbox: no lifecycle tools, no sandbox_id argument")
	cmd.Flags().StringSliceVar(&opts.Tools, "tools", nil, "offer only these tools (comma-separated)")
	cmd.Flags().BoolVar(&opts.ReadOnly, "read-only", false, "offer only the tools that change nothing")
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "serve Streamable HTTP on `HOST:PORT` (path /mcp) instead of stdio")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "accept a --listen address other than loopback")
	cmd.Flags().StringVar(&opts.Token, "token", "", "bearer token of --listen (default $"+TokenVariable+", else one made and printed once; flags show in ps: prefer the variable)")
	return cmdutil.NoJSON(cmd)
}

// Server returns the MCP server over the Factory's provider.
func (opts *ServeOptions) Server() *mcp.Server {
	return mcpserver.New(opts.serverOptions())
}

func (opts *ServeOptions) serverOptions() mcpserver.Options {
	f := opts.Factory
	return mcpserver.Options{
		Version:       meta.BuildInfo().Version,
		Ready:         sync.OnceValue(func() error { return ready(f) }),
		Sandboxes:     f.Sandboxes.Keeping(mcpserver.ClientTTL),
		Sandbox:       opts.Sandbox,
		Tools:         opts.Tools,
		ReadOnly:      opts.ReadOnly,
		Secrets:       f.IO.Secrets,
		MaxOutput:     opts.MaxOutput,
		ProgressEvery: opts.ProgressEvery,
	}
}

// ready opens the provider, without reading stdin: it carries the
// protocol, so a setting given as '-' is refused with what to do instead.
func ready(f *cmdutil.Factory) error {
	st, err := f.Settings()
	if err != nil {
		return err
	}
	if st.ReadsStdin() {
		return abxerr.New(abxerr.InvalidConfig, "a setting is to be read from stdin ('-'), which carries the MCP protocol").
			WithHint("give it by its variable or a key file instead")
	}
	_, err = f.Provider()
	return err
}

// memoryLimit is the server's soft memory limit, unless GOMEMLIMIT says
// otherwise: a host keeps the server for hours, and calls at once each hold
// their output several times over while the SDK encodes and checks it;
// without a limit the heap grows to twice what is live before a collection.
// A --max-output above the default raises it, so that one call's live heap
// never sits above it (the collector would then run back to back).
func memoryLimit(maxOutput int) int64 {
	return max(32<<20, 8*int64(maxOutput))
}

func runServe(ctx context.Context, opts *ServeOptions) error {
	if opts.Factory.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(opts.MaxOutput))
	}
	if opts.Listen != "" {
		return serveHTTP(ctx, opts, opts.Server())
	}
	t := opts.Transport
	if t == nil {
		t = &mcpserver.Stdio{In: opts.IO.In, Out: opts.IO.Out}
	}
	err := opts.Server().Run(ctx, t)
	var drain *mcpserver.DrainError
	switch {
	case errors.As(err, &drain):
		return abxerr.New(abxerr.Timeout, "%v", drain)
	case err != nil && ctx.Err() == nil:
		return abxerr.New(abxerr.Internal, "the MCP session ended: %v", err)
	}
	return nil
}
