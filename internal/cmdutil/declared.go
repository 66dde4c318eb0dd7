package cmdutil

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// DeclaredVerbs are the commands the catalogue declares whole
// (sandboxes.Door): each is built from its operation's declaration, with
// one anatomy, so that an operation declared so needs no command written
// for it.
func DeclaredVerbs() []Verb {
	var out []Verb
	for _, op := range sandboxes.Catalogue() {
		if op.Door == nil || op.Door.Group == "" || op.Call == nil {
			continue
		}
		out = append(out, Verb{Names: Names{strings.Fields(op.Door.Use)[0]}, Group: op.Door.Group,
			Build: func(f *Factory) *cobra.Command { return NewCmdDeclared(f, op, nil) }})
	}
	return out
}

// DeclaredOptions are the inputs of a command built from its operation's
// declaration.
type DeclaredOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	Operation *sandboxes.Operation
	Values    sandboxes.Values
}

// NewCmdDeclared builds the command of op: its positional inputs are its
// arguments, in order, its other inputs its flags, each read as its kind
// reads (syntax only: the operation checks every bound).
func NewCmdDeclared(f *Factory, op *sandboxes.Operation, runF func(context.Context, *DeclaredOptions) error) *cobra.Command {
	cmd, args := newDeclared(f, op, runF)
	spell := make([]string, 0, len(args))
	for i, in := range args {
		spell = append(spell, in.Name+"="+strings.ToLower(in.Name)+"#"+strconv.Itoa(i))
	}
	return Does(cmd, op.Name, spell...)
}

// newDeclared is NewCmdDeclared's command before it names its operation,
// with its positional inputs.
func newDeclared(f *Factory, op *sandboxes.Operation, runF func(context.Context, *DeclaredOptions) error) (*cobra.Command, []*sandboxes.Input) {
	opts := &DeclaredOptions{Printer: f.Printer, Sandboxes: f.Sandboxes, Operation: op}
	d := op.Door
	var args []*sandboxes.Input
	var names []string
	for i := range op.Inputs {
		if in := &op.Inputs[i]; in.Positional {
			args = append(args, in)
			names = append(names, strings.ToUpper(in.Name))
		}
	}
	var flags []*inputFlag
	cmd := &cobra.Command{
		Use:     d.Use,
		Short:   d.Short,
		Long:    d.Long,
		Example: d.Example,
		Args:    ExactArgs(names...),
		RunE: func(cmd *cobra.Command, argv []string) error {
			opts.Values = sandboxes.Values{}
			for i, in := range args {
				if err := read(opts.Values, in, in.Name, argv[i]); err != nil {
					return err
				}
			}
			for _, fl := range flags {
				for _, s := range fl.given {
					if err := read(opts.Values, fl.in, "--"+fl.in.Name, s); err != nil {
						return err
					}
				}
			}
			return Run(cmd, opts, runF, RunDeclared)
		},
	}
	for i := range op.Inputs {
		in := &op.Inputs[i]
		if in.Positional {
			continue
		}
		fl := &inputFlag{in: in}
		flags = append(flags, fl)
		pf := cmd.Flags().VarPF(fl, in.Name, "", in.Usage)
		if in.Kind == sandboxes.Flag {
			pf.NoOptDefVal = "true"
		}
		if in.Kind == sandboxes.Choice {
			_ = cmd.RegisterFlagCompletionFunc(in.Name, cobra.FixedCompletions(in.Enum, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	if len(args) > 0 && args[0].Name == "id" {
		cmd.ValidArgsFunction = CompleteSandbox(f, nil)
	}
	return cmd, args
}

// inputFlag is the flag of a declared input: it keeps each value as
// typed, for read, since the input's kind reads it; pairs gather, every
// other kind keeps the last. Its type in the help is the one the house's
// hand-written flags show: bool (shown as none), int, stringArray for
// pairs, string for the rest (a duration reads "45s" or "2m").
type inputFlag struct {
	in    *sandboxes.Input
	given []string
}

func (f *inputFlag) String() string {
	if len(f.given) == 0 {
		return ""
	}
	return f.given[len(f.given)-1]
}

func (f *inputFlag) Set(s string) error {
	f.given = append(f.given, s)
	return nil
}

func (f *inputFlag) Type() string {
	switch f.in.Kind {
	case sandboxes.Flag:
		return "bool"
	case sandboxes.Number:
		return "int"
	case sandboxes.Pairs:
		return "stringArray"
	default:
		return "string"
	}
}

// read reads one input as written on the command line into v.
func read(v sandboxes.Values, in *sandboxes.Input, what, s string) error {
	switch in.Kind {
	case sandboxes.Number:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return abxerr.New(abxerr.InvalidInput, "invalid %s %q", what, s).WithHint("give a whole number")
		}
		v[in.Name] = n
	case sandboxes.Seconds:
		d, err := ParseSeconds(what, s, in, "for its default")
		if err != nil {
			return err
		}
		v[in.Name] = d
	case sandboxes.Duration:
		d, err := readDuration(what, s)
		if err != nil {
			return err
		}
		v[in.Name] = d
	case sandboxes.Flag:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return abxerr.New(abxerr.InvalidInput, "invalid %s %q: not true or false", what, s)
		}
		v[in.Name] = b
	case sandboxes.Pairs:
		m, err := ParseKeyValues(what, []string{s})
		if err != nil {
			return err
		}
		all := v.Pairs(in.Name)
		if all == nil {
			all = map[string]string{}
		}
		for k, x := range m {
			all[k] = x
		}
		v[in.Name] = all
	default:
		if in.Name == "id" {
			id, err := SandboxID(s)
			if err != nil {
				return err
			}
			s = id
		}
		v[in.Name] = s
	}
	return nil
}

// RunDeclared calls the operation with the values its command read and
// prints the result: JSON, the line as its name, or the line.
func RunDeclared(ctx context.Context, opts *DeclaredOptions) error {
	r, err := opts.Operation.Call(ctx, opts.Sandboxes, opts.Values)
	if err != nil {
		return err
	}
	line := opts.Operation.Door.Line(r)
	return opts.Printer.Print(r, []string{line}, func() error { return opts.Printer.Line(line) })
}
