// Package human words numbers and text for people the same way at every
// door: a count with its noun, a size in binary units, text without a
// terminal's control sequences. It is pure and links no printer, so that
// the MCP server words its results as the command line does without
// linking lipgloss or tablewriter (internal/output is the command line's).
package human

import "strconv"

// Count is n with its noun in agreement, for every message that counts
// something: "1 sandbox", "2 sandboxes", "0 files".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
