package root

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// negativeValues lets an argument that is a negative number ("-1s", "-5",
// "-80") be read as the value it is, so that `abx timeout ID -1s` is
// refused as out of range, as `--timeout -1s` is, where pflag would read
// flags -1 and -s. No flag of abx has a digit for its shorthand, so such
// an argument can only be a value: a flag's (`--count -1`, which pflag
// reads well) or an argument's. The arguments from the first such one on
// are moved after a "--", in their order, and the flags stay where they
// were. A command line that has its own "--", or a command that takes a
// command line after one (exec, run), is left as it is.
func negativeValues(root *cobra.Command, args []string) []string {
	// Almost no command line has one: those cost no look-up of the command.
	if !slices.ContainsFunc(args, negativeNumber) || slices.Contains(args, "--") {
		return args
	}
	c, _, err := root.Find(args)
	if err != nil || strings.Contains(c.Use, "--") {
		return args
	}
	flag := func(long, short string) *pflag.Flag {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.InheritedFlags()} {
			if f := fs.Lookup(long); long != "" && f != nil {
				return f
			}
			if f := fs.ShorthandLookup(short); short != "" && f != nil {
				return f
			}
		}
		return nil
	}
	var kept, moved []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case negativeNumber(a):
			moved = append(moved, a)
		case strings.HasPrefix(a, "--"):
			kept = append(kept, a)
			if f := flag(a[2:], ""); !strings.Contains(a, "=") && f != nil && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				kept = append(kept, args[i])
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			kept = append(kept, a)
			if f := flag("", a[len(a)-1:]); f != nil && f.NoOptDefVal == "" && shorthandTakesNext(a, flag) && i+1 < len(args) {
				i++
				kept = append(kept, args[i])
			}
		case moved != nil:
			moved = append(moved, a)
		default:
			kept = append(kept, a)
		}
	}
	if moved == nil {
		return args
	}
	return append(append(kept, "--"), moved...)
}

// negativeNumber is a minus and a digit, or a minus, a dot and a digit.
func negativeNumber(a string) bool {
	rest, ok := strings.CutPrefix(a, "-")
	rest = strings.TrimPrefix(rest, ".")
	return ok && rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// shorthandTakesNext tells whether the value of a cluster of shorthands
// ("-n", "-rn") is the next argument: each shorthand before the last is a
// flag without a value, and the last takes one.
func shorthandTakesNext(a string, flag func(long, short string) *pflag.Flag) bool {
	for i := 1; i < len(a)-1; i++ {
		f := flag("", a[i:i+1])
		if f == nil || f.NoOptDefVal == "" {
			return false // the rest of the cluster is that flag's value
		}
	}
	return true
}
