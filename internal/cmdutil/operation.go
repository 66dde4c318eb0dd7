package cmdutil

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/sandboxes"
)

const (
	annotOperation = "abx/operation" // the operation of the catalogue the command calls
	annotSpelling  = "abx/spelling"  // input=NAME pairs: how its errors name the operation's inputs
	annotServes    = "abx/serves"    // the operation a door the command serves needs first
)

// Does declares the operation of the catalogue (sandboxes.Op) a command
// calls: the root has the operations check its capability before the
// command reads anything (E8004 when the provider lacks it), and the
// operation's errors name its inputs as the command takes them. An input
// is named by the command's flag of the same name (--timeout, --depth),
// or as spell says: "timeout=DURATION#1" for the positional argument 1 (from
// 0), "lease=--lease" for a flag of another name.
func Does(cmd *cobra.Command, op string, spell ...string) *cobra.Command {
	sandboxes.Op(op) // a name the catalogue lacks is a bug: panic as the tree is built
	annotate(cmd, annotOperation, op)
	if len(spell) > 0 {
		annotate(cmd, annotSpelling, strings.Join(spell, ","))
	}
	return cmd
}

// Serves declares that a command serves a door of its own whose calls
// include op (the engine, which creates sandboxes for the SDKs): the root
// has the operations check op's capability before the door starts, so that
// a provider without it is refused once, not at every call. The door's own
// calls are admitted each as it comes.
func Serves(cmd *cobra.Command, op string) *cobra.Command {
	sandboxes.Op(op)
	return annotate(cmd, annotServes, op)
}

// Operation is the operation Does declared for cmd, nil for none.
func Operation(cmd *cobra.Command) *sandboxes.Operation {
	name := cmd.Annotations[annotOperation]
	if name == "" {
		return nil
	}
	return sandboxes.Op(name)
}

// Admitted is the operation the root admits before cmd runs: the one it
// Does, or the one the door it Serves needs first; nil for none.
func Admitted(cmd *cobra.Command) *sandboxes.Operation {
	if op := Operation(cmd); op != nil {
		return op
	}
	if name := cmd.Annotations[annotServes]; name != "" {
		return sandboxes.Op(name)
	}
	return nil
}

// Spelling is how cmd, given args, names the inputs of its operation: each
// by its flag or argument, as Does was told, and its value quoted as it
// was typed.
func Spelling(cmd *cobra.Command, args []string) sandboxes.Spelling {
	sp := sandboxes.Spelling{Names: map[string]string{}, Shown: map[string]string{}, Quote: true}
	op := Operation(cmd)
	if op == nil {
		return sp
	}
	flag := func(in, name string) {
		if fl := cmd.Flags().Lookup(name); fl != nil {
			sp.Names[in] = "--" + name
			if fl.Changed && fl.Value.Type() == "string" {
				sp.Shown[in] = fl.Value.String()
			}
		}
	}
	for _, in := range op.Inputs {
		flag(in.Name, in.Name)
	}
	for _, pair := range strings.Split(cmd.Annotations[annotSpelling], ",") {
		in, name, ok := strings.Cut(pair, "=")
		if !ok {
			continue
		}
		if f, isFlag := strings.CutPrefix(name, "--"); isFlag {
			flag(in, f)
			continue
		}
		name, at, positional := strings.Cut(name, "#")
		sp.Names[in] = name
		if i, err := strconv.Atoi(at); positional && err == nil && i < len(args) {
			sp.Shown[in] = args[i]
		}
	}
	return sp
}

// Bounded describes a flag's bounds as the operation declares them, for
// its usage line: "levels of subdirectories to list (1 to 16)".
func Bounded(fl *pflag.Flag, in *sandboxes.Input) {
	fl.Usage += " (" + strings.Replace(in.Range(), " and ", " to ", 1) + ")"
}
