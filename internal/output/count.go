package output

import "strconv"

// Count is n with its noun in agreement, for every message that counts
// something: "1 sandbox", "2 sandboxes", "0 files".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
