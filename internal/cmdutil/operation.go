package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/sandboxes"
)

const (
	annotOperation = "abx/operation" // the operation of the catalogue the command calls
	annotSpelling  = "abx/spelling"  // input=NAME pairs: how its errors name the operation's inputs
)

// Does declares the operation of the catalogue (sandboxes.Op) a command
// calls: the root has the operations check its capability before the
// command reads anything (E8004 when the provider lacks it), and the
// operation's errors name its inputs as the command takes them. An input
// is named by the command's flag of the same name (--timeout, --depth),
// or as spell says: "timeout=DURATION" for a positional argument or a flag
// of another name.
func Does(cmd *cobra.Command, op string, spell ...string) *cobra.Command {
	sandboxes.Op(op) // a name the catalogue lacks is a bug: panic as the tree is built
	annotate(cmd, annotOperation, op)
	if len(spell) > 0 {
		annotate(cmd, annotSpelling, strings.Join(spell, ","))
	}
	return cmd
}

// Operation is the operation Does declared for cmd, nil for none.
func Operation(cmd *cobra.Command) *sandboxes.Operation {
	name := cmd.Annotations[annotOperation]
	if name == "" {
		return nil
	}
	return sandboxes.Op(name)
}

// Spelling is how cmd names the inputs of its operation: values quoted as
// typed, each input by its flag, or as Does was told; and what was typed
// for each input given by a flag, which its refusal shows.
func Spelling(cmd *cobra.Command) sandboxes.Spelling {
	sp := sandboxes.Spelling{Names: map[string]string{}, Given: map[string]string{}, Quote: true}
	op := Operation(cmd)
	if op == nil {
		return sp
	}
	for _, in := range op.Inputs {
		if cmd.Flags().Lookup(in.Name) != nil {
			sp.Names[in.Name] = "--" + in.Name
		}
	}
	for _, pair := range strings.Split(cmd.Annotations[annotSpelling], ",") {
		if in, name, ok := strings.Cut(pair, "="); ok {
			sp.Names[in] = name
		}
	}
	for in, name := range sp.Names {
		flag, ok := strings.CutPrefix(name, "--")
		if fl := cmd.Flags().Lookup(flag); ok && fl != nil && fl.Changed {
			sp.Given[in] = fl.Value.String()
		}
	}
	return sp
}

// Bounded describes a flag's bounds as the operation declares them, for
// its usage line: "levels of subdirectories to list (1 to 16)".
func Bounded(fl *pflag.Flag, in *sandboxes.Input) {
	fl.Usage += " (" + strings.Replace(in.Range(), " and ", " to ", 1) + ")"
}
