package sandbox

import "github.com/abx-dev/abx/internal/output"

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
