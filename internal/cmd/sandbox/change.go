package sandbox

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// change is the JSON of timeout, pause and resume (docs/json.md): what the
// sandbox became.
type change struct {
	SandboxID string `json:"sandboxID"`
	State     string `json:"state,omitempty"`
	Timeout   int64  `json:"timeout,omitempty"` // seconds
}

// printChange says what a change did: a note for people, the change for
// programs, the ID for -o name.
func printChange(p *output.Printer, c change, note string, args ...any) error {
	p.Note(note, args...)
	return p.Print(c, []string{c.SandboxID}, nil)
}

// idAndLifetime reads the ID argument and the optional --timeout of
// connect and resume: 0 when it is not given, and the server's default
// applies.
func idAndLifetime(cmd *cobra.Command, arg, timeout string) (string, time.Duration, error) {
	id, err := cmdutil.SandboxID(arg)
	if err != nil || !cmd.Flags().Changed("timeout") {
		return id, 0, err
	}
	in := sandboxes.Op("sandbox.connect").Input("timeout")
	d, err := cmdutil.ParseSeconds("--timeout", timeout, in, "for the command's default")
	return id, d, err
}
