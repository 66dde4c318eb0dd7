package cmdutil

import (
	"strings"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/shell"
)

// PrintEnv prints KEY=VALUE pairs as the env verbs do (emulator env,
// provider engine env): export lines for eval, one JSON object, or the
// names.
func PrintEnv(p *output.Printer, env []string) error {
	m := map[string]string{}
	names := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
		names = append(names, k)
	}
	return p.Print(m, names, func() error {
		_, err := p.Out().Write([]byte(shell.Exports(env)))
		return err
	})
}
