// Package mcpserver is `abx mcp serve`'s server: the provider's sandboxes
// as Model Context Protocol tools, one of abx's three doors over the
// sandbox operations (internal/sandboxes), with internal/remoteproc for
// the commands it runs. It knows nothing of the command line, and links
// none of it: the command gives it the operations and a transport to
// serve on (docs/mcp.md).
package mcpserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/secrets"
)

// Defaults of the bounds (docs/mcp.md).
const (
	// DefaultMaxOutput caps each stream of a command's output, and a file
	// read without max_bytes.
	DefaultMaxOutput = 256 << 10
	// DefaultExecTimeout is how long a command without timeout_seconds may
	// run before it is killed.
	DefaultExecTimeout = 10 * time.Minute
	// ClientTTL is how long a sandbox's clients are kept between calls: a
	// call within it sends only its own requests, not first a read of the
	// sandbox (its address, token and version), which an agent's calls one
	// after another would pay each time (sandboxes.Service.KeepClients).
	ClientTTL = 30 * time.Second
	// maxReadBytes bounds files_read's max_bytes.
	maxReadBytes = 16 << 20
)

// Options are what the server works with.
type Options struct {
	// Version is abx's, told to the host at initialization.
	Version string
	// Ready is called at the start of every tool call: it opens the
	// provider (once) and says what is missing. Nothing is sent before it.
	Ready func() error
	// Sandboxes are the sandbox operations the tools call. The server's
	// calls come one after another: it keeps each sandbox's clients for a
	// while (ClientTTL is what the command gives it).
	Sandboxes *sandboxes.Service
	// Sandbox, when set, pins the server to this sandbox: the tools that
	// create, list, kill, pause or resume sandboxes are not offered, and the
	// others take no sandbox_id.
	Sandbox string
	// Tools, when set, are the only tools offered (see Offered).
	Tools []string
	// ReadOnly offers only the read-only tools.
	ReadOnly bool
	// Secrets are redacted from every result and error the server
	// answers (redactAnswers).
	Secrets *secrets.Set
	// MaxOutput caps each output stream of exec and a file read without
	// max_bytes; 0 is DefaultMaxOutput.
	MaxOutput int
	// ExecTimeout is exec's default timeout; 0 is DefaultExecTimeout.
	ExecTimeout time.Duration
	// ProgressEvery is how often a long call sends progress; 0 is
	// DefaultProgressEvery.
	ProgressEvery time.Duration
}

// server holds what the tools share.
type server struct {
	opts Options
	// catalog is every tool, offered or not, as addTools registers them.
	catalog []ToolInfo
	// shown are the offered tools' input schemas as tools/list shows them.
	shown map[string]*jsonschema.Schema
}

// New returns the MCP server with the tools of docs/mcp.md.
func New(opts Options) *mcp.Server {
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.ExecTimeout <= 0 {
		opts.ExecTimeout = DefaultExecTimeout
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = DefaultProgressEvery
	}
	s := &server{opts: opts, shown: map[string]*jsonschema.Schema{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "abx", Title: "abx sandboxes", Version: opts.Version},
		&mcp.ServerOptions{Instructions: Instructions(opts)})
	s.addTools(srv)
	srv.AddReceivingMiddleware(s.redactAnswers, codeArguments, s.showBounds)
	return srv
}

// addTools registers every tool the options offer, in a fixed order;
// with a nil server it only lists them in s.catalog.
func (s *server) addTools(srv *mcp.Server) {
	s.addSandboxTools(srv)
	s.addLifecycleTools(srv)
	s.addSnapshotTools(srv)
	s.addDeclaredTools(srv)
	s.addMetricsTool(srv)
	s.addExecTool(srv)
	s.addRunTool(srv)
	s.addProcessTools(srv)
	s.addFilesTools(srv)
	s.addCodeTool(srv)
}

// Instructions are what the server tells the host at initialization: how
// its tools go together, naming only the tools these options offer (a
// server pinned with --sandbox has no sandbox_create to point to).
func Instructions(opts Options) string {
	var offered []string
	for _, t := range Tools() {
		if offers(opts, t) {
			offered = append(offered, t.Name)
		}
	}
	has := func(name string) bool { return slices.Contains(offered, name) }
	var b strings.Builder
	in := "In a sandbox, "
	switch {
	case opts.Sandbox != "":
		fmt.Fprintf(&b, "Tools over one sandbox of abx's provider, %s, which every tool works in.", opts.Sandbox)
		in = ""
	case has("sandbox_create"):
		b.WriteString("Tools over the sandboxes of abx's provider. Create a sandbox with sandbox_create.")
		in = "In it, "
	default:
		b.WriteString("Tools over the sandboxes of abx's provider.")
	}
	var work []string
	for _, w := range []struct{ tool, does string }{
		{"exec", "run shell lines with exec"},
		{"run_code", "run code with run_code"},
		{"files_read", "read files with files_read"},
		{"files_write", "write files with files_write"},
		{"files_list", "list directories with files_list"},
	} {
		if has(w.tool) {
			work = append(work, w.does)
		}
	}
	if len(work) > 0 {
		if in == "" {
			work[0] = strings.ToUpper(work[0][:1]) + work[0][1:]
		}
		b.WriteString(" " + in + work[0])
		for i, w := range work[1:] {
			if i == len(work)-2 {
				b.WriteString(" and " + w)
			} else {
				b.WriteString(", " + w)
			}
		}
		b.WriteString(".")
	}
	if has("sandbox_kill") {
		b.WriteString(" Kill a sandbox with sandbox_kill when done.")
	}
	if has("sandbox_run") {
		b.WriteString(" Or run a whole job in a throwaway sandbox with sandbox_run.")
	}
	b.WriteString(" Errors carry abx's code (E3001: not found, E4001: the key was refused, E8004: the provider lacks the capability).")
	return b.String()
}

// toolError is an error of abx as a tool answers it: its code, its
// message and its hint (secrets are redacted from it as from every
// result, by redactAnswers). The SDK turns it into a result with isError,
// never a protocol error.
type toolError struct{ text string }

func (e *toolError) Error() string { return e.text }

// fail makes err a tool error, its long words cut as every door cuts
// them (abxerr.CutWords).
func (s *server) fail(err error) error {
	e := abxerr.From(err)
	msg := e.Message
	var out *withOutput
	if !errors.As(err, &out) {
		msg = abxerr.CutWords(msg)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Code, msg)
	hint := abxerr.CutWords(e.Hint)
	if hint == "" {
		hint = toolHint(e)
	}
	if hint != "" {
		fmt.Fprintf(&b, " (%s)", hint)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return &toolError{text: b.String()}
}

// text is a result of one text content.
func text(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func ptr[T any](v T) *T { return &v }

// nonNil keeps a map from marshalling as null, which its schema refuses.
func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// failIn is fail for a call that went through sandbox id's envd client: a
// failure that a fresh read of the sandbox may explain or mend (it was
// paused or killed meanwhile, its token refused, the network) drops the
// kept client first.
func (s *server) failIn(id string, err error) error {
	switch abxerr.From(err).Code {
	case abxerr.Network, abxerr.Server, abxerr.Unauthorized, abxerr.Forbidden, abxerr.NotFound, abxerr.BadResponse:
		s.opts.Sandboxes.Forget(id)
	}
	return s.fail(err)
}
