// Package shell writes command lines for bash: the one quoting rule abx
// uses, for commands it runs in a sandbox and for export lines it prints.
package shell

import "strings"

// Line is the command line bash runs for argv: one argument as written (a
// shell line, with its pipes and globs), several quoted one by one (an
// argv, arriving intact).
func Line(argv []string) string {
	if len(argv) == 1 {
		return argv[0]
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = Quote(a)
	}
	return strings.Join(quoted, " ")
}

// Quote makes s one word for bash: as it is when it holds nothing special,
// else in single quotes.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Exports writes KEY=VALUE pairs as export lines, for eval in a shell.
func Exports(env []string) string {
	var b strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.WriteString("export " + k + "=" + Quote(v) + "\n")
	}
	return b.String()
}
