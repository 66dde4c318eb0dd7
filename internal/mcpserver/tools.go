package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ToolInfo describes one tool of the server.
type ToolInfo struct {
	Name string
	// Operation is the operation of the catalogue the tool calls.
	Operation string
	// ReadOnly tools change nothing: what --read-only offers.
	ReadOnly bool
	// Lifecycle tools create, list, kill, pause or resume sandboxes: a
	// server pinned to one sandbox does not offer them.
	Lifecycle bool
}

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

// spelling is how the tools name the operations' inputs: their
// arguments' JSON names, where they are not the catalogue's own.
var spelling = sandboxes.Spelling{Names: map[string]string{
	"id": "sandbox_id", "timeout": "timeout_seconds", "env": "envs", "context": "context_id",
	"ttl": "ttl_seconds",
}}

// argument is the input of op an argument of a tool is, nil for one the
// catalogue does not declare (a door's own, such as max_bytes).
func argument(op *sandboxes.Operation, name string) *sandboxes.Input {
	for i := range op.Inputs {
		in := &op.Inputs[i]
		if spelled := spelling.Names[in.Name]; spelled == name || (spelled == "" && in.Name == name) {
			return in
		}
	}
	return nil
}

// inputSchema is the input schema the SDK infers for In: what it checks
// a call's arguments against (their types, the properties a tool has).
func inputSchema[In any](tool string) *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic("mcpserver: the input schema of " + tool + ": " + err.Error())
	}
	return schema
}

// bounded is schema as a host is shown it: each argument with its bounds
// from op's inputs (minimum, maximum, enum). The SDK checks calls against
// schema, without them, so that a value out of bounds reaches the
// operation, which refuses it in its own words and with its code (E1002),
// as it does for every door.
func bounded(op *sandboxes.Operation, schema *jsonschema.Schema) *jsonschema.Schema {
	shown := schema.CloneSchemas()
	for name, p := range shown.Properties {
		in := argument(op, name)
		if in == nil {
			continue
		}
		switch in.Kind {
		case sandboxes.Number, sandboxes.Seconds:
			if in.Min != 0 || in.Max != 0 {
				lo, hi := float64(in.Min), float64(in.Max)
				p.Minimum, p.Maximum = &lo, &hi
			}
		case sandboxes.Choice:
			if p.Type == "string" {
				for _, e := range in.Enum {
					p.Enum = append(p.Enum, e)
				}
			}
		}
	}
	return shown
}

// add registers a tool of the operation named op when the options offer
// it, and lists it in the catalog anyway. Whether it is read-only, and
// whether a pinned server offers it, are the operation's. On a pinned
// server, the tool's input schema has no sandbox_id: the schema's closed
// properties refuse one.
func add[In, Out any](s *server, srv *mcp.Server, op string, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	o := sandboxes.Op(op)
	if t.Annotations == nil {
		t.Annotations = &mcp.ToolAnnotations{}
	}
	t.Annotations.ReadOnlyHint = o.ReadOnly
	info := ToolInfo{Name: t.Name, Operation: op, ReadOnly: o.ReadOnly, Lifecycle: o.Lifecycle}
	s.catalog = append(s.catalog, info)
	if srv == nil || !offers(s.opts, info) {
		return
	}
	schema := inputSchema[In](t.Name)
	if s.opts.Sandbox != "" {
		delete(schema.Properties, "sandbox_id")
		schema.Required = slices.DeleteFunc(schema.Required, func(p string) bool { return p == "sandbox_id" })
	}
	t.InputSchema = schema
	s.shown[t.Name] = bounded(o, schema)
	mcp.AddTool(srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		return h(sandboxes.WithSpelling(ctx, spelling), req, in)
	})
}
