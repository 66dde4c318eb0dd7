package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Bounds of the server's sandbox lifetime (PROTOCOL.md §2): create refuses
// less than 30 s; nothing may exceed 30 days.
const (
	minCreateTimeout = 30 * time.Second
	minTimeout       = 1 * time.Second
	maxTimeout       = 30 * 24 * time.Hour
)

// parseTimeout reads a sandbox lifetime given to flag: Go syntax (90s, 5m,
// 2h) or plain seconds, whole seconds, within [min, max].
func parseTimeout(flag, s string, minD time.Duration) (time.Duration, error) {
	d, err := parseDurationOrSeconds(s)
	if err != nil || d <= 0 {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: not a duration", flag, s).
			WithHint("use Go syntax (90s, 5m, 2h), days (7d) or plain seconds")
	}
	if d%time.Second != 0 {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: the server counts whole seconds", flag, s).
			WithHint("round it to whole seconds, e.g. %s", d.Round(time.Second))
	}
	if d < minD || d > maxTimeout {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: must be between %s and 30 days", flag, s, minD).
			WithHint("the server refuses lifetimes outside that range")
	}
	return d, nil
}

// parseKeyValues reads repeated KEY=VALUE flags into a map. Nil for none.
func parseKeyValues(flag string, items []string) (map[string]string, error) {
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

// States a sandbox can be filtered on.
var sandboxStates = []string{"running", "paused"}

// parseStates reads --state running,paused (repeatable, comma lists).
func parseStates(items []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, s := range strings.Split(it, ",") {
			s = strings.TrimSpace(strings.ToLower(s))
			if s != "running" && s != "paused" {
				return nil, abxerr.New(abxerr.InvalidInput, "invalid --state %q", s).
					WithHint("use %s (comma-separated)", strings.Join(sandboxStates, " or "))
			}
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// parsePort reads a port number 1..65535.
func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid port %q", s).
			WithHint("give a port number between 1 and 65535")
	}
	return p, nil
}

// checkIDs refuses empty or blank sandbox IDs before anything is sent.
func checkIDs(ids ...string) error {
	for _, id := range ids {
		if strings.TrimSpace(id) == "" || strings.ContainsAny(id, " \t\r\n/") {
			return abxerr.New(abxerr.InvalidInput, "invalid sandbox ID %q", id).
				WithHint("pass an ID as shown by 'abx list'")
		}
	}
	return nil
}

// sortedKeys lists a map's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sortedPairs shows a map as k=v,k=v in key order.
func sortedPairs(m map[string]string) string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%s", k, m[k])
	}
	return strings.Join(parts, ",")
}
