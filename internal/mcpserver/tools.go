package mcpserver

import (
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
)

// ToolInfo describes one tool of the server.
type ToolInfo struct {
	Name string
	// ReadOnly tools change nothing: what --read-only offers.
	ReadOnly bool
	// Lifecycle tools create, list, kill, pause or resume sandboxes: a
	// server pinned to one sandbox does not offer them.
	Lifecycle bool
}

// lifecycle names the tools a pinned server does not offer.
var lifecycle = []string{"sandbox_create", "sandbox_list", "sandbox_kill", "sandbox_pause", "sandbox_resume", "sandbox_run"}

// Tools lists every tool of the server, in the order it lists them.
func Tools() []ToolInfo {
	s := &server{}
	s.addTools(nil)
	return s.catalog
}

// Offered checks opts.Tools and returns the names of the tools a server
// with these options offers: an unknown name, or one that --sandbox or
// --read-only leaves out, is an error of code Usage.
func Offered(opts Options) ([]string, error) {
	all := Tools()
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	for _, n := range opts.Tools {
		i := slices.Index(names, n)
		switch {
		case i < 0:
			return nil, abxerr.New(abxerr.Usage, "unknown tool %q in --tools: the tools are %s", n, strings.Join(names, ", "))
		case opts.Sandbox != "" && all[i].Lifecycle:
			return nil, abxerr.New(abxerr.Usage, "--tools names %s, which a server pinned with --sandbox does not offer", n)
		case opts.ReadOnly && !all[i].ReadOnly:
			return nil, abxerr.New(abxerr.Usage, "--tools names %s, which is not read-only (--read-only)", n)
		}
	}
	var out []string
	for _, t := range all {
		if offers(opts, t) {
			out = append(out, t.Name)
		}
	}
	return out, nil
}

// offers tells whether a server with opts offers t.
func offers(opts Options, t ToolInfo) bool {
	switch {
	case opts.Sandbox != "" && t.Lifecycle, opts.ReadOnly && !t.ReadOnly:
		return false
	case len(opts.Tools) > 0:
		return slices.Contains(opts.Tools, t.Name)
	}
	return true
}

// inputSchema is the input schema the SDK would infer for In, for a tool
// that words part of it from a rule's bound.
func inputSchema[In any](tool string) *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic("mcpserver: the input schema of " + tool + ": " + err.Error())
	}
	return schema
}

// add registers a tool when the options offer it, and lists it in the
// catalog anyway. On a pinned server, the tool's input schema has no
// sandbox_id: the schema's closed properties refuse one.
func add[In, Out any](s *server, srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	info := ToolInfo{Name: t.Name, ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		Lifecycle: slices.Contains(lifecycle, t.Name)}
	s.catalog = append(s.catalog, info)
	if srv == nil || !offers(s.opts, info) {
		return
	}
	if s.opts.Sandbox != "" {
		schema := inputSchema[In](t.Name)
		if given, ok := t.InputSchema.(*jsonschema.Schema); ok {
			schema = given.CloneSchemas()
		}
		delete(schema.Properties, "sandbox_id")
		schema.Required = slices.DeleteFunc(schema.Required, func(p string) bool { return p == "sandbox_id" })
		t.InputSchema = schema
	}
	mcp.AddTool(srv, t, h)
}
