package mcp

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/abx-dev/abx/internal/output"
)

// host is one agent host's form of the block, and what to tell its user.
type host struct {
	// where says, in one line, where the host keeps the block.
	where string
	// getsEnv says how the host's server gets a variable the block
	// leaves out.
	getsEnv string
	// comments says the form takes comments: the notes on left-out
	// variables go in the block, not on stderr.
	comments bool
	render   func(w io.Writer, b *block) error
}

var hosts = map[string]host{
	"json": {
		where:   "Merge this into the mcpServers of your host's configuration file: Claude Desktop, Cursor and most hosts read this shape.",
		getsEnv: "Set it in the environment the host starts from, or add it to the entry's env yourself",
		render:  mcpServers,
	},
	"claude": {
		where:   `Claude Desktop keeps it in claude_desktop_config.json, in ~/Library/Application Support/Claude/ on macOS and %APPDATA%\Claude\ on Windows (Settings > Developer > Edit Config): merge this into its mcpServers and restart it.`,
		getsEnv: "Claude Desktop passes its servers none of your shell's variables: add it to the entry's env yourself",
		render:  mcpServers,
	},
	"claude-code": {
		where:    "Run this line: claude keeps the server in ~/.claude.json for this project (add --scope user for every project, or --scope project for the project's .mcp.json).",
		getsEnv:  "Claude Code passes its environment to the servers it starts: export it in the shell that runs claude",
		comments: true,
		render:   claudeMCPAdd,
	},
	"cursor": {
		where:   "Cursor keeps it in .cursor/mcp.json in the project, or ~/.cursor/mcp.json for every project: merge this into its mcpServers.",
		getsEnv: "Set it in the environment Cursor starts from, or add it to the entry's env yourself",
		render:  mcpServers,
	},
	"vscode": {
		where:   "VS Code keeps it in .vscode/mcp.json in the workspace, or in your profile's mcp.json (MCP: Open User Configuration): merge this into its servers.",
		getsEnv: "Set it in the environment VS Code starts from, or add it to the entry's env yourself",
		render:  vscodeServers,
	},
}

func hostNames() []string {
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// unsetNote says why a variable is not in the block and how the server
// gets it.
func (h host) unsetNote(u leftOut) string {
	note := fmt.Sprintf("%s is not printed. %s.", u.env, h.getsEnv)
	if u.fileFlag != "" {
		note += fmt.Sprintf(" Or give the key in a file, --%s PATH, and run abx mcp config again.", u.fileFlag)
	}
	return note
}

// server is a stdio server's entry, as the JSON hosts read it.
type server struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func mcpServers(w io.Writer, b *block) error {
	return writeJSON(w, map[string]map[string]server{
		"mcpServers": {b.name: {Command: b.command, Args: b.args, Env: b.env}},
	})
}

func vscodeServers(w io.Writer, b *block) error {
	return writeJSON(w, map[string]map[string]server{
		"servers": {b.name: {Type: "stdio", Command: b.command, Args: b.args, Env: b.env}},
	})
}

// writeJSON writes v indented, as people paste it; maps come sorted.
func writeJSON(w io.Writer, v any) error { return output.WriteJSON(w, v) }

// claudeMCPAdd writes the `claude mcp add` line, quoted for a POSIX
// shell. The name comes before -e, whose list would take it as a
// variable.
func claudeMCPAdd(w io.Writer, b *block) error {
	var line strings.Builder
	line.WriteString("claude mcp add " + shellQuote(b.name))
	keys := make([]string, 0, len(b.env))
	for k := range b.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line.WriteString(" -e " + shellQuote(k+"="+b.env[k]))
	}
	line.WriteString(" --")
	for _, a := range append([]string{b.command}, b.args...) {
		line.WriteString(" " + shellQuote(a))
	}
	line.WriteString("\n")
	_, err := io.WriteString(w, line.String())
	return err
}

// shellQuote leaves a word of plain characters as it is and puts any
// other in single quotes.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
