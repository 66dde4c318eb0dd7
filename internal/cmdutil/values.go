package cmdutil

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Bounds of the server's sandbox lifetime (docs/protocol.md, lifetimes):
// create refuses less than 30 s; nothing may exceed 30 days.
const (
	MinCreateTimeout = 30 * time.Second
	MinTimeout       = 1 * time.Second
	maxTimeout       = 30 * 24 * time.Hour
)

// ParseTimeout reads a sandbox lifetime or a command's time limit given to
// flag: Go syntax (90s, 5m, 2h) or plain seconds, whole seconds, within
// [min, max]. 0 and negative durations are durations out of that range,
// not words abx cannot read.
func ParseTimeout(flag, s string, minD time.Duration) (time.Duration, error) {
	d, err := ParseDurationOrSeconds(s)
	if err != nil {
		// "-5" is a duration too, below the range.
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
	if d > 0 && d%time.Second != 0 {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: the server counts whole seconds", flag, s).
			WithHint("round it to whole seconds, e.g. %s", d.Round(time.Second))
	}
	switch {
	case d == 0 && strings.HasPrefix(flag, "--"):
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between %s and 30 days", flag, s, minD).
			WithHint("0 is no time: leave %s out for the command's default", flag)
	case d < minD || d > maxTimeout:
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between %s and 30 days", flag, s, minD).
			WithHint("the server refuses lifetimes outside that range")
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

// CheckEnv refuses, before anything is sent, a variable no process can be
// given: an empty name, a name with '=' or NUL, a value with NUL. A
// process's environment is NAME=VALUE strings that NUL ends, so envd
// would fail the command (exit 126), or set another variable than the one
// named. what names the argument ("envs"). The value is never shown: it
// may be a secret.
func CheckEnv(what string, env map[string]string) error {
	for _, k := range SortedKeys(env) {
		switch {
		case k == "":
			return abxerr.New(abxerr.InvalidInput, "invalid %s: a variable has an empty name", what).
				WithHint("give each variable a name")
		case strings.ContainsAny(k, "=\x00"):
			return abxerr.New(abxerr.InvalidInput, "invalid %s name %q: a variable's name cannot hold '=' or NUL", what, k).
				WithHint("a process's environment is NAME=VALUE strings, each ended by NUL")
		case strings.ContainsRune(env[k], 0):
			return abxerr.New(abxerr.InvalidInput, "invalid %s %s: its value holds NUL, which a process's environment cannot carry", what, k).
				WithHint("a process's environment is NAME=VALUE strings, each ended by NUL")
		}
	}
	return nil
}

// SandboxStates are the states a sandbox can be filtered on.
var SandboxStates = []string{"running", "paused"}

// ParseStates reads --state running,paused (repeatable, comma lists).
func ParseStates(items []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, s := range strings.Split(it, ",") {
			s = strings.TrimSpace(strings.ToLower(s))
			if s != "running" && s != "paused" {
				return nil, abxerr.New(abxerr.InvalidInput, "invalid --state %q", s).
					WithHint("use %s (comma-separated)", strings.Join(SandboxStates, " or "))
			}
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// ParsePort reads a port number 1..65535.
func ParsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid port %q", s).
			WithHint("give a port number between 1 and 65535")
	}
	return p, nil
}

// sandboxPrefix is what -o name printed before IDs were bare, as kubectl
// writes kind/name: still accepted, so old pipelines keep working.
const sandboxPrefix = "sandbox/"

// maxIDLength bounds an ID: Kubernetes names stay under 253 bytes.
const maxIDLength = provider.MaxIDLength

// SandboxID reads a sandbox ID argument: as 'abx list' shows it, or as
// sandbox/ID. Anything that could not be one is refused before it is sent,
// in particular what would change the URL it is put into: the rule every
// door shares, provider.CheckSandboxID.
func SandboxID(arg string) (string, error) {
	id := strings.TrimPrefix(arg, sandboxPrefix)
	if err := provider.CheckSandboxID(id); err != nil {
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

// CheckID refuses an identifier (what: "sandbox ID", "context ID",
// "--user") that no server issues, before anything is sent: the rule of
// provider.CheckID.
func CheckID(what, id string) *abxerr.Error {
	return provider.CheckID(what, id)
}

// CheckUser refuses a --user that is no Linux user name before it is sent:
// envd puts it in a Basic authorization header, where ':' and line breaks
// would change its meaning. "" (envd's default user) is fine.
func CheckUser(u string) error {
	if u == "" {
		return nil
	}
	if err := CheckID("--user", u); err != nil {
		return err.WithHint("give a Linux user name in the sandbox, such as user or root")
	}
	return nil
}

// SortedKeys lists a map's keys in order.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SortedPairs shows a map as k=v,k=v in key order.
func SortedPairs(m map[string]string) string {
	keys := SortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%s", k, m[k])
	}
	return strings.Join(parts, ",")
}

// Dash stands in for an empty cell.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
