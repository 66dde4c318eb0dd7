package cmdutil

import (
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ParseLifetime reads a sandbox lifetime given to flag: Go syntax (90s,
// 5m, 2h), days (7d) or plain seconds, whole seconds, within [minD, 30
// days] (sandboxes.CheckLifetime; minD is sandboxes.MinCreateLifetime or
// MinLifetime).
func ParseLifetime(flag, s string, minD time.Duration) (time.Duration, error) {
	d, err := parseSeconds(flag, s)
	if err != nil {
		return 0, err
	}
	if d == 0 && strings.HasPrefix(flag, "--") {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between %s and 30 days", flag, s, minD).
			WithHint("0 is no time: leave %s out for the command's default", flag)
	}
	if err := sandboxes.CheckLifetime(flag, strconv.Quote(s), d, minD); err != nil {
		return 0, err
	}
	return d, nil
}

// ParseProcessTimeout reads a command's time limit given to flag, in the
// forms ParseLifetime reads, within [1s, 24h]
// (sandboxes.CheckProcessTimeout): a process's bound, not a sandbox's
// lifetime.
func ParseProcessTimeout(flag, s string) (time.Duration, error) {
	d, err := parseSeconds(flag, s)
	if err != nil {
		return 0, err
	}
	if d == 0 && strings.HasPrefix(flag, "--") {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between 1s and 24h", flag, s).
			WithHint("0 is no time: leave %s out for no limit", flag)
	}
	if err := sandboxes.CheckProcessTimeout(flag, strconv.Quote(s), d); err != nil {
		return 0, err
	}
	return d, nil
}

// ParseSeconds reads a duration given to flag that the operation bounds
// (a process's time limit, a lease): the forms every duration takes
// (readDuration), in whole seconds, a negative one read as below every
// range. Its bounds are the operation's, whose refusal shows what was
// typed (Spelling).
func ParseSeconds(flag, s string) (time.Duration, error) {
	return parseSeconds(flag, s)
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

// readDuration reads a duration in the forms every duration of abx takes:
// Go syntax (90s, 5m, 500ms), days (7d), plain seconds (300, 1.5). A
// negative duration ("-1s", "-5") is read as one, to be refused as out of
// range, not as words abx cannot read.
func readDuration(flag, s string) (time.Duration, error) {
	d, err := ParseDurationOrSeconds(s)
	if err != nil {
		if rest, neg := strings.CutPrefix(strings.TrimSpace(s), "-"); neg {
			if _, rerr := ParseDurationOrSeconds(rest); rerr == nil {
				err, d = nil, -1
			}
		}
	}
	if err != nil {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: not a duration", flag, s).
			WithHint("use Go syntax (90s, 5m, 2h), days (7d) or plain seconds")
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

// ParseStates reads --state running,paused (repeatable, comma lists).
func ParseStates(items []string) ([]string, error) {
	return sandboxes.ParseStates("--state", items)
}

// ParsePort reads a port number 1..65535.
func ParsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || sandboxes.CheckPort(p) != nil {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid port %q", s).
			WithHint("give a port number between 1 and 65535")
	}
	return p, nil
}

// sandboxPrefix is what -o name printed before IDs were bare, as kubectl
// writes kind/name: still accepted, so old pipelines keep working.
const sandboxPrefix = "sandbox/"

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
