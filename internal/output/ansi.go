package output

import "regexp"

// ansiEscape matches the terminal control sequences programs colour their
// output with: CSI (colours, cursor moves) and OSC (titles, links).
var ansiEscape = regexp.MustCompile(`\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// StripANSI removes colour and other control sequences from s.
func StripANSI(s string) string { return ansiEscape.ReplaceAllString(s, "") }
