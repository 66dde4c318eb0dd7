//go:build unix

package root

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory"
	"github.com/abx-dev/abx/internal/output"
)

// Every command's error, in a JSON mode, is one JSON object on stderr:
// a refused command line (too many arguments), and a command that fails
// once it runs (here: no API key configured).
func TestEveryCommandPrintsJSONErrors(t *testing.T) {
	t.Parallel()
	io, _, _, _ := output.Test(false)
	tree := NewCmdRoot(factory.New(io, nil, factory.Options{}))
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(append([]string{}, path...), sub.Name())
			switch {
			case sub.Name() == "completion", sub.Name() == "help", !sub.Runnable():
			case len(p) == 2 && p[0] == "emulator" && p[1] != "env":
				// start serves until interrupted, exec runs its argument
			default:
				paths = append(paths, p)
			}
			walk(sub, p)
		}
	}
	walk(tree, nil)
	if len(paths) < 30 {
		t.Fatalf("found only %d commands: %v", len(paths), paths)
	}
	for _, p := range paths {
		for _, tc := range []struct {
			name string
			args []string
		}{
			{"too many arguments", []string{"a1", "a2", "a3", "a4", "a5"}},
			{"no API key", []string{"sb-1", "1"}},
		} {
			t.Run(strings.Join(p, " ")+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				_, e := fakeManager(t)
				e["ABX_ALICLOUD_CONTAINER_API_KEY"] = ""
				args := append(append(append([]string{}, p...), tc.args...), "-o", "json")
				if p[0] == "run-code" && len(p) == 1 {
					// --stream's JSON Lines: errors are JSON too
					args = append(args[:len(args)-2], "--stream")
				}
				r := run(t, e, false, args...)
				if r.code == 0 {
					return // some commands need neither (config, version, capabilities)
				}
				var v struct {
					Error struct{ Code, Message string }
				}
				if strings.Count(r.stderr, "\n") != 1 || json.Unmarshal([]byte(r.stderr), &v) != nil || v.Error.Code == "" {
					t.Errorf("exit %d, stderr is not one JSON error: %q", r.code, r.stderr)
				}
			})
		}
	}
}
