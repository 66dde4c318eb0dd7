package cmdutil

import (
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ParseSeconds reads a duration given to flag for in, an input of an
// operation counted in whole seconds, in the forms every duration takes (readDuration), whole seconds:
// its syntax only, for the operation checks its bounds. A negative one is
// read as itself, for the operation to refuse. A flag given 0 is refused
// here, in the words of in's bounds, since the operation reads 0 as the
// input left out; zeroHint says what leaving it out does.
func ParseSeconds(flag, s string, in *sandboxes.Input, zeroHint string) (time.Duration, error) {
	d, err := parseSeconds(flag, s)
	switch {
	case err != nil:
		return 0, err
	case d == 0 && strings.HasPrefix(flag, "--"): // an argument's 0 is the operation's to refuse
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between %s", flag, s, in.Range()).
			WithHint("0 is no time: leave %s out %s", flag, zeroHint)
	case d < 0:
		rest, _ := strings.CutPrefix(strings.TrimSpace(s), "-")
		if r, err := ParseDurationOrSeconds(rest); err == nil {
			d = -r
		}
	}
	return d, nil
}

// ParseDurationIn reads a duration given to flag (or to an argument, when
// flag names it: "DURATION") that is abx's own bound rather than the
// server's, and may be under a second: the forms every duration takes
// (readDuration), within [minD, maxD]. Out of range, 0 and negative
// durations included, it says the range as every duration does; zeroHint,
// when set, says what to do instead of 0 (leave the flag out).
func ParseDurationIn(flag, s string, minD, maxD time.Duration, zeroHint string) (time.Duration, error) {
	d, err := readDuration(flag, s)
	if err != nil {
		return 0, err
	}
	if d < minD || d > maxD {
		e := abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between %s and %s", flag, s, ShowDuration(minD), ShowDuration(maxD))
		if d == 0 && zeroHint != "" {
			return 0, e.WithHint("%s", zeroHint)
		}
		return 0, e.WithHint("give a duration in that range: Go syntax (%s, 5m), days (7d) or seconds", ShowDuration(minD))
	}
	return d, nil
}

// ShowDuration writes a bound as people write it: 30 days, 24h, 1s,
// 100ms (not 720h0m0s or 24h0m0s).
func ShowDuration(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d >= 2*day && d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + " days"
	case d >= time.Minute && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d >= time.Minute && d%time.Minute == 0:
		return strings.TrimSuffix(d.String(), "0s")
	}
	return d.String()
}

// ParseDuration reads a duration given to flag in the forms every
// duration of abx takes: Go syntax (90s, 5m, 500ms), days (7d), plain
// seconds (300, 1.5). It reads the syntax only: a negative duration
// ("-1s", "-5") is read as one, for the operation's bounds to refuse.
func ParseDuration(flag, s string) (time.Duration, error) {
	d, err := ParseDurationOrSeconds(s)
	if err == nil {
		return d, nil
	}
	if rest, neg := strings.CutPrefix(strings.TrimSpace(s), "-"); neg {
		if d, err := ParseDurationOrSeconds(rest); err == nil {
			return -d, nil
		}
	}
	return 0, notDuration(flag, s)
}

// notDuration refuses what is no duration.
func notDuration(flag, s string) error {
	return abxerr.New(abxerr.InvalidInput, "invalid %s %q: not a duration", flag, s).
		WithHint("use Go syntax (90s, 5m, 2h), days (7d) or plain seconds")
}

// readDuration reads a duration in the forms every duration of abx takes:
// Go syntax (90s, 5m, 500ms), days (7d), plain seconds (300, 1.5). A
// negative duration ("-1s", "-5") is read as one, to be refused as out of
// range, not as words abx cannot read.
func readDuration(flag, s string) (time.Duration, error) {
	d, err := ParseDuration(flag, s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		d = -1 // below every range, whatever its size
	}
	return d, nil
}

// parseSeconds reads a duration the server counts in whole seconds
// (readDuration, then whole seconds).
func parseSeconds(flag, s string) (time.Duration, error) {
	d, err := readDuration(flag, s)
	if err != nil {
		return 0, err
	}
	if d > 0 && d%time.Second != 0 {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: the server counts whole seconds", flag, s).
			WithHint("round it to whole seconds, e.g. %s", d.Round(time.Second))
	}
	return d, nil
}

// ParseKeyValues reads repeated KEY=VALUE flags into a map. Nil for none.
func ParseKeyValues(flag string, items []string) (map[string]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(items))
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, abxerr.New(abxerr.InvalidInput, "invalid %s %q: want KEY=VALUE", flag, it).
				WithHint("write it as %s key=value", flag)
		}
		m[k] = v
	}
	return m, nil
}

// ParseStates reads --state running,paused (repeatable, comma lists):
// which states there are is the operation's to say.
func ParseStates(items []string) []string {
	var out []string
	for _, it := range items {
		out = append(out, strings.Split(it, ",")...)
	}
	return out
}

// ParsePort reads a port number; which ports there are is the operation's
// to say (1 to 65535).
func ParsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid port %q", s).
			WithHint("give a port number between 1 and 65535")
	}
	return p, nil
}

// sandboxPrefix is what -o name printed before IDs were bare, as kubectl
// writes kind/name: still accepted, so old pipelines keep working.
const sandboxPrefix = "sandbox/"

// SandboxArg is the sandbox ID an argument names: as 'abx list' shows
// it, or as sandbox/ID. It is not checked here: the operation the command
// calls refuses one that could not be an ID, before anything is sent.
func SandboxArg(arg string) string { return strings.TrimPrefix(arg, sandboxPrefix) }

// SandboxID reads a sandbox ID argument: as 'abx list' shows it, or as
// sandbox/ID. Anything that could not be one is refused before it is sent,
// in particular what would change the URL it is put into: the rule every
// door shares, sandboxes.CheckSandboxID.
func SandboxID(arg string) (string, error) {
	id := strings.TrimPrefix(arg, sandboxPrefix)
	if err := sandboxes.CheckSandboxID(id); err != nil {
		return "", err.WithHint("pass an ID as shown by 'abx list'")
	}
	return id, nil
}

// SandboxIDs reads several sandbox ID arguments.
func SandboxIDs(args []string) ([]string, error) {
	ids := make([]string, len(args))
	for i, a := range args {
		id, err := SandboxID(a)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}
