package sandboxes

import (
	"context"
	"time"
)

// An operation whose doors are built from its declaration alone: its
// command, its MCP tool and its route of E2B's API need no code of their
// own, only the words below. Most operations are one call on one sandbox
// with a few inputs and one result; those are declared with a Door and a
// Call, and each door reads its input the way it reads every input
// (arguments and flags, a tool's JSON, a request's body), hands it over as
// Values, and renders the result in its form (docs/architecture.md,
// "Adding an operation"). An operation that streams, reads stdin or draws
// a table of its own keeps a door written by hand.

// Door says how the doors offer an operation built from its declaration.
type Door struct {
	// Group is the section of 'abx --help' its command is listed in
	// ("sandboxes", "inside"); "" offers no command.
	Group string
	// Use is its command line, the command's name first, then its
	// positional inputs in upper case, in the order of the operation's
	// inputs marked Positional: "snapshot ID".
	Use, Short, Long, Example string
	// Tool is its MCP tool's name ("" for none), with its description and
	// title.
	Tool, ToolDoc, Title string
	// Route is its route of E2B's API ("POST /sandboxes/{id}/snapshots"),
	// answered with Status and the result as JSON; "" for none. A path
	// value is the input of its name. An operation abx does not offer yet
	// (no Call) may declare its route alone: the engine refuses it
	// (E8004) until the operation is offered.
	Route  string
	Status int
	// Result is a value of the result's type (a nil pointer will do): the
	// tool's output schema. Destructive and Idempotent are the tool's
	// hints, for an operation that is not read-only.
	Result                  any
	Destructive, Idempotent bool
	// Line words the result in one line: what a person reads on a
	// terminal, and the text of the tool's answer.
	Line func(result any) string
}

// Values are the inputs of one call, by their names in the catalogue,
// each of the Go type its kind reads as: Text and Choice a string, Number
// an int64, Seconds a time.Duration, Pairs a map[string]string, Flag a
// bool. A value a door was not given is absent.
type Values map[string]any

// Text is a Text or Choice input's value, "" when absent.
func (v Values) Text(name string) string { s, _ := v[name].(string); return s }

// Number is a Number input's value, 0 when absent.
func (v Values) Number(name string) int64 { n, _ := v[name].(int64); return n }

// Seconds is a Seconds input's value, 0 when absent.
func (v Values) Seconds(name string) time.Duration { d, _ := v[name].(time.Duration); return d }

// Flag is a Flag input's value, false when absent.
func (v Values) Flag(name string) bool { b, _ := v[name].(bool); return b }

// Pairs is a Pairs input's value, nil when absent.
func (v Values) Pairs(name string) map[string]string { m, _ := v[name].(map[string]string); return m }

// Caller runs an operation with the values a built door read: a call of the
// operation's one function, and nothing else.
type Caller func(ctx context.Context, s *Service, in Values) (any, error)
