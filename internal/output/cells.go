package output

import (
	"sort"
	"strings"
)

// Dash stands in for an empty cell.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Pairs shows a map as k=v,k=v in key order: a cell of metadata.
func Pairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}
