package sandboxes

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// The catalogue: every operation abx offers on sandboxes, declared once
// (catalogue.go lists them). A declaration is data the doors read: the
// command line takes its capability from it, the MCP server its tools'
// read-only and lifecycle marks and its schemas' minimum, maximum and
// enum, the engine the capability of a route it cannot serve. The rules
// themselves (the capability, the sandbox ID, each input's bounds and the
// words that refuse them) are checked here, in the operation's function,
// once a call: a door translates its own input to the function's
// arguments and renders its result, and never checks a rule itself
// (TestDoorsFollowTheCatalogue).

// Operation is one operation of the catalogue.
type Operation struct {
	// Name is the operation's name: "sandbox.timeout", "files.list".
	Name string
	// Capability is what the provider must declare for it (E8004).
	Capability provider.Capability
	// Func is the method of *Service every door calls for it.
	Func string
	// Inputs are what it is given, with their bounds.
	Inputs []Input
	// ReadOnly operations change nothing (an MCP server's --read-only
	// offers only these).
	ReadOnly bool
	// Lifecycle operations make, list, end, pause or resume sandboxes: a
	// door bound to one sandbox (an MCP server's --sandbox) offers none.
	Lifecycle bool
	// Door and Call, when set, build the operation's doors from this
	// declaration alone (declared.go).
	Door *Door
	Call Caller
}

// Kind is what sort of value an input is, which says how its bounds read.
type Kind int

const (
	// Text is a string: Required refuses one that is empty or blank.
	Text Kind = iota
	// Number is an integer within [Min, Max].
	Number
	// Seconds is a duration, counted in seconds on the wire, within
	// [Min, Max] seconds (0 leaves the server's default unless Required).
	Seconds
	// Duration is a duration of abx's own that may be under a second,
	// within [Min, Max] milliseconds (0 is none unless Required).
	Duration
	// Choice is one of Enum.
	Choice
	// Pairs is a set of NAME=VALUE pairs (metadata, environment).
	Pairs
	// Flag is a boolean.
	Flag
)

// Input is one input of an operation.
type Input struct {
	// Name is the input's name in the catalogue; each door spells it its
	// own way (Spelling).
	Name     string
	Kind     Kind
	Required bool
	// Min and Max bound a Number, Seconds or Duration (both 0:
	// unbounded).
	Min, Max int64
	// Enum lists a Choice's values.
	Enum []string
	// Hint says what to do when the bound refuses a value.
	Hint string
	// Unset says what leaving a Seconds input out means ("no limit"), for
	// the refusal of a 0 a caller typed.
	Unset string
	// Positional inputs are a built command's arguments, in order; the
	// others its flags. Usage is what the flag's help says.
	Positional bool
	Usage      string
}

// Op returns the declared operation named name; it panics on a name
// the catalogue does not have, which is a bug of the door that names it.
func Op(name string) *Operation {
	for _, op := range catalogue {
		if op.Name == name {
			return op
		}
	}
	panic("sandboxes: no operation " + name + " in the catalogue")
}

// Catalogue lists every operation, in the order the catalogue declares
// them.
func Catalogue() []*Operation { return slices.Clone(catalogue) }

// Input returns the operation's input named name; it panics on a name the
// operation does not have.
func (op *Operation) Input(name string) *Input {
	for i := range op.Inputs {
		if op.Inputs[i].Name == name {
			return &op.Inputs[i]
		}
	}
	panic("sandboxes: operation " + op.Name + " has no input " + name)
}

// method tells whether *Service has the operation's function.
func (op *Operation) method() bool {
	_, ok := reflect.TypeFor[*Service]().MethodByName(op.Func)
	return ok
}

// Spelling is how a door names inputs in its errors: the command line
// --timeout or DURATION, the MCP server timeout_seconds. The words of a
// refusal are the operation's; the names in them are the caller's.
type Spelling struct {
	// Names maps an input's name to the door's; an input not in it is
	// named as the catalogue names it.
	Names map[string]string
	// Quote shows values quoted, as the command line shows what was typed.
	Quote bool
	// Shown maps an input's name to its value as the caller wrote it
	// ("-5", "600"), which a refusal shows rather than the value read.
	Shown map[string]string
}

type spellingKey struct{}

// WithSpelling returns ctx carrying sp, for the operations called with it.
func WithSpelling(ctx context.Context, sp Spelling) context.Context {
	return context.WithValue(ctx, spellingKey{}, sp)
}

// Spelled tells whether ctx carries a door's spelling already.
func Spelled(ctx context.Context) bool {
	_, ok := ctx.Value(spellingKey{}).(Spelling)
	return ok
}

func spellingOf(ctx context.Context) Spelling {
	sp, _ := ctx.Value(spellingKey{}).(Spelling)
	return sp
}

// name is in's name as the caller spells it.
func (in *Input) name(ctx context.Context) string {
	if n := spellingOf(ctx).Names[in.Name]; n != "" {
		return n
	}
	return in.Name
}

// given is what the caller typed for in, "" when the door did not say.
func (in *Input) given(ctx context.Context) string {
	return spellingOf(ctx).Shown[in.Name]
}

// shown is a value of in as the caller's door shows one: as it was
// written, when the door says.
func (in *Input) shown(ctx context.Context, v string) string {
	sp := spellingOf(ctx)
	if w, ok := sp.Shown[in.Name]; ok {
		v = w
	}
	if sp.Quote {
		return strconv.Quote(v)
	}
	return v
}

// Range says an input's bounds in words ("1 and 16", "30s and 30 days"),
// for a door's help and descriptions.
func (in *Input) Range() string {
	switch in.Kind {
	case Seconds:
		return showSeconds(in.Min) + " and " + showSeconds(in.Max)
	case Duration:
		return showMillis(in.Min) + " and " + showMillis(in.Max)
	}
	return strconv.FormatInt(in.Min, 10) + " and " + strconv.FormatInt(in.Max, 10)
}

// showMillis says a bound of milliseconds as people write it: 100ms, or
// in whole seconds as showSeconds does.
func showMillis(n int64) string {
	if n%1000 != 0 {
		return strconv.FormatInt(n, 10) + "ms"
	}
	return showSeconds(n / 1000)
}

// showSeconds says a bound of seconds as people write it: 30s, 24h, 30
// days.
func showSeconds(n int64) string {
	const day = 24 * 60 * 60
	switch {
	case n >= 2*day && n%day == 0:
		return strconv.FormatInt(n/day, 10) + " days"
	case n >= 3600 && n%3600 == 0:
		return strconv.FormatInt(n/3600, 10) + "h"
	case n >= 60 && n%60 == 0:
		return strconv.FormatInt(n/60, 10) + "m"
	}
	return strconv.FormatInt(n, 10) + "s"
}

// CheckNumber refuses a number outside the input's bounds. A flag's
// number is shown as the number the flag read (--depth 0), unquoted; an
// argument's as the door shows what was typed.
func (in *Input) CheckNumber(ctx context.Context, v int64) error {
	if (in.Min == 0 && in.Max == 0) || (v >= in.Min && v <= in.Max) {
		return nil
	}
	n := strconv.FormatInt(v, 10)
	if !strings.HasPrefix(in.name(ctx), "-") {
		n = in.shown(ctx, n)
	}
	return in.refuse(ctx, n)
}

// CheckSeconds refuses a duration outside the input's bounds (a Seconds
// or Duration input); 0 is the server's default, or none, unless the
// input is required.
func (in *Input) CheckSeconds(ctx context.Context, d time.Duration) error {
	if d == 0 && !in.Required && in.given(ctx) == "" { // a 0 typed is a value, not the input left out
		return nil
	}
	unit := time.Second
	if in.Kind == Duration {
		unit = time.Millisecond
	}
	if d >= time.Duration(in.Min)*unit && d <= time.Duration(in.Max)*unit {
		return nil
	}
	v := d.String() // 25h0m0s, shown 25h, as it was likely typed
	if strings.HasSuffix(v, "m0s") {
		v = strings.TrimSuffix(v, "0s")
	}
	if strings.HasSuffix(v, "h0m") {
		v = strings.TrimSuffix(v, "0m")
	}
	if d == 0 {
		v = "0" // what a caller types for no time
	}
	if in.Kind == Seconds && d%time.Second == 0 && !spellingOf(ctx).Quote {
		v = strconv.FormatInt(int64(d/time.Second), 10) // counted as the door counts it
	}
	err := in.refuse(ctx, in.shown(ctx, v))
	if d == 0 && in.Unset != "" {
		err.Hint = fmt.Sprintf("0 is no time: leave %s out for %s", in.name(ctx), in.Unset)
	}
	return err
}

// refuse refuses the value v, as the door shows it.
func (in *Input) refuse(ctx context.Context, v string) *abxerr.Error {
	e := abxerr.New(abxerr.InvalidInput, "invalid %s %s: must be between %s", in.name(ctx), v, in.Range())
	if in.Hint != "" {
		e.Hint = in.Hint
	}
	return e
}

// CheckChoice reads a Choice in any case, with surrounding blanks, and
// returns it as the catalogue spells it; "" stays "" unless the input is
// required.
func (in *Input) CheckChoice(ctx context.Context, v string) (string, error) {
	c := strings.TrimSpace(v)
	if c == "" && !in.Required {
		return "", nil
	}
	if i := slices.IndexFunc(in.Enum, func(e string) bool { return strings.EqualFold(e, c) }); i >= 0 {
		return in.Enum[i], nil
	}
	e := abxerr.New(abxerr.InvalidInput, "invalid %s %s", in.name(ctx), in.shown(ctx, v))
	e.Hint = fmt.Sprintf("use %s", strings.Join(in.Enum, ", "))
	if in.Hint != "" {
		e.Hint = in.Hint
	}
	return "", e
}

// CheckText refuses a required text that is empty or blank.
func (in *Input) CheckText(_ context.Context, v string) error {
	if !in.Required || strings.TrimSpace(v) != "" {
		return nil
	}
	// One wording in every door, in the catalogue's word for it.
	e := abxerr.New(abxerr.InvalidInput, "the %s is required", in.Name)
	e.Hint = in.Hint
	return e
}

// begin is what every call of op starts with: the capability, before any
// I/O, once a call (a door that admitted the call already checked it).
func (s *Service) begin(ctx context.Context, op *Operation) error {
	if admitted(ctx, op) {
		return nil
	}
	return s.Check(op.Capability)
}

type admittedKey struct{}

// Admit checks the capability of op before the door reads its own input (the
// command line's stdin, a local file), and returns ctx marking it checked,
// so that the operation does not check it again.
func (s *Service) Admit(ctx context.Context, op *Operation) (context.Context, error) {
	if op.Capability == "" {
		return ctx, s.Unoffered(op) // only an operation abx does not offer has none
	}
	if err := s.Check(op.Capability); err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, admittedKey{}, op), nil
}

func admitted(ctx context.Context, op *Operation) bool {
	a, _ := ctx.Value(admittedKey{}).(*Operation)
	return a == op
}

// on begins an operation on one sandbox: the capability, then its ID.
func (s *Service) on(ctx context.Context, op *Operation, id string) (provider.Provider, error) {
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	if err := provider.CheckSandboxID(id); err != nil {
		return nil, err.Suggest(abxerr.StepList, "")
	}
	return s.Provider()
}

// Unoffered refuses an operation abx declares but does not offer yet (one
// of E2B's API with no function in the catalogue), with E8004: naming the
// capability it needs when the provider lacks it too, else the operation.
func (s *Service) Unoffered(op *Operation) error {
	if op.Capability != "" {
		if err := s.Check(op.Capability); err != nil {
			return err
		}
	}
	return abxerr.New(abxerr.Unsupported, "abx does not offer %s yet", op.Name)
}
