package mcpserver

import (
	"context"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// addDeclaredTools registers the tool of every operation the catalogue
// declares whole with one (sandboxes.Door.Tool), in the catalogue's
// order: an operation declared so needs no line here.
func (s *server) addDeclaredTools(srv *mcp.Server) {
	for _, op := range sandboxes.Catalogue() {
		if op.Door != nil && op.Door.Tool != "" && op.Call != nil {
			s.addDeclared(srv, op)
		}
	}
}

// addDeclared registers the tool of an operation the catalogue declares
// whole (sandboxes.Door): its arguments are the operation's inputs, named
// as the tools name them (spelling), its result the operation's, its text
// the declaration's line. It is listed in the catalog wherever it is
// added, as every tool is.
func (s *server) addDeclared(srv *mcp.Server, op *sandboxes.Operation) {
	d := op.Door
	info := ToolInfo{Name: d.Tool, Operation: op.Name, ReadOnly: op.ReadOnly, Lifecycle: op.Lifecycle}
	s.catalog = append(s.catalog, info)
	if srv == nil || !offers(s.opts, info) {
		return
	}
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for i := range op.Inputs {
		in := &op.Inputs[i]
		if in.Name == "id" && s.opts.Sandbox != "" {
			continue // a pinned server's tools take no sandbox_id
		}
		arg := ArgName(in)
		schema.Properties[arg] = &jsonschema.Schema{Type: jsonType(in.Kind), Description: in.Usage}
		if in.Kind == sandboxes.Pairs {
			schema.Properties[arg].AdditionalProperties = &jsonschema.Schema{Type: "string"}
		}
		if in.Required {
			schema.Required = append(schema.Required, arg)
		}
	}
	rt := reflect.TypeOf(d.Result)
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem() // a result is an object, never null: its schema's type is "object"
	}
	out, err := jsonschema.ForType(rt, nil)
	if err != nil {
		panic("mcpserver: the output schema of " + d.Tool + ": " + err.Error())
	}
	s.shown[d.Tool] = bounded(op, schema)
	t := &mcp.Tool{Name: d.Tool, Description: d.ToolDoc, InputSchema: schema, OutputSchema: out,
		Annotations: &mcp.ToolAnnotations{Title: d.Title, ReadOnlyHint: op.ReadOnly, IdempotentHint: d.Idempotent}}
	if !op.ReadOnly {
		t.Annotations.DestructiveHint = ptr(d.Destructive)
	}
	mcp.AddTool(srv, t, func(ctx context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
		in, err := s.values(op, args)
		if err != nil {
			return nil, nil, s.fail(err)
		}
		r, err := op.Call(sandboxes.WithSpelling(ctx, spelling), s.opts.Sandboxes, in)
		if err != nil {
			return nil, nil, s.fail(err)
		}
		return text("%s", d.Line(r)), r, nil
	})
}

// values reads a declared tool's arguments, which the SDK checked against
// its schema (their types), as the operation's values.
func (s *server) values(op *sandboxes.Operation, args map[string]any) (sandboxes.Values, error) {
	v := sandboxes.Values{}
	for i := range op.Inputs {
		in := &op.Inputs[i]
		a, given := args[ArgName(in)]
		if in.Name == "id" {
			id, err := s.sandboxID(stringOf(a))
			if err != nil {
				return nil, err
			}
			v["id"] = id
			continue
		}
		if !given {
			continue
		}
		switch in.Kind {
		case sandboxes.Number:
			n, ok := a.(float64)
			if !ok || n != float64(int64(n)) {
				return nil, abxerr.New(abxerr.InvalidInput, "invalid %s: not a whole number", ArgName(in))
			}
			v[in.Name] = int64(n)
		case sandboxes.Seconds:
			n, ok := a.(float64)
			if !ok || n != float64(int64(n)) {
				return nil, abxerr.New(abxerr.InvalidInput, "invalid %s: not a whole number of seconds", ArgName(in))
			}
			v[in.Name] = time.Duration(n) * time.Second
		case sandboxes.Flag:
			b, _ := a.(bool)
			v[in.Name] = b
		case sandboxes.Pairs:
			m := map[string]string{}
			if obj, ok := a.(map[string]any); ok {
				for k, x := range obj {
					m[k] = stringOf(x)
				}
			}
			v[in.Name] = m
		default:
			v[in.Name] = stringOf(a)
		}
	}
	return v, nil
}

// ArgName is the argument a tool takes an input as (also for the
// generated reference).
func ArgName(in *sandboxes.Input) string {
	if n := spelling.Names[in.Name]; n != "" {
		return n
	}
	return in.Name
}

func jsonType(k sandboxes.Kind) string {
	switch k {
	case sandboxes.Number, sandboxes.Seconds:
		return "integer"
	case sandboxes.Flag:
		return "boolean"
	case sandboxes.Pairs:
		return "object"
	}
	return "string"
}

// stringOf is a string argument, "" for another type (which the schema
// refused already).
func stringOf(a any) string { s, _ := a.(string); return s }
