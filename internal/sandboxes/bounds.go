package sandboxes

import (
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// A sandbox's lifetime, as the server bounds it (docs/protocol.md,
// "Lifetimes"): a new sandbox lives 30 s at least, a deadline set later
// 1 s at least, and none more than 30 days.
const (
	MinCreateLifetime = 30 * time.Second
	MinLifetime       = time.Second
	MaxLifetime       = 30 * 24 * time.Hour
)

// A process's time limit (exec's and run-code's --timeout, the MCP tools'
// timeout_seconds): abx's bound, not the server's, and no sandbox's
// lifetime. A day is longer than any command a caller waits for; what
// runs longer runs in the background, which no limit stops
// (docs/exec.md, "Time limits").
const (
	MinProcessTimeout = time.Second
	MaxProcessTimeout = 24 * time.Hour
)

// CheckLifetime refuses a sandbox lifetime outside [minD, MaxLifetime]
// (minD: MinCreateLifetime for a new sandbox, MinLifetime for a deadline
// set later). shown is the value as the caller wrote it.
func CheckLifetime(what, shown string, d, minD time.Duration) error {
	if d < minD || d > MaxLifetime {
		return abxerr.New(abxerr.InvalidInput, "invalid %s %s: must be between %s and 30 days", what, shown, minD).
			WithHint("the server refuses lifetimes outside that range")
	}
	return nil
}

// CheckProcessTimeout refuses a process's time limit outside
// [MinProcessTimeout, MaxProcessTimeout]. shown is the value as the
// caller wrote it.
func CheckProcessTimeout(what, shown string, d time.Duration) error {
	if d < MinProcessTimeout || d > MaxProcessTimeout {
		return abxerr.New(abxerr.InvalidInput, "invalid %s %s: must be between 1s and 24h", what, shown).
			WithHint("a command that runs longer belongs in the background, which no time limit stops")
	}
	return nil
}

// lifetime checks a lifetime an operation was given in seconds, as the
// wire counts it.
func lifetime(d, minD time.Duration) error {
	return CheckLifetime("timeout", strconv.FormatInt(int64(d/time.Second), 10)+"s", d, minD)
}

// CheckTemplate refuses a template that is empty or only blanks: every
// door names one (the engine its own default), and the service would
// answer a nameless one in words of its own. Whether a named template
// exists is the service's to say (E3001).
func CheckTemplate(template string) error {
	if strings.TrimSpace(template) == "" {
		return abxerr.New(abxerr.InvalidInput, "the template is required").
			WithHint("name the template to start from, e.g. base or code-interpreter")
	}
	return nil
}
