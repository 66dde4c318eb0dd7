package human

import (
	"regexp"
	"strings"
	"sync"
)

// ansiEscape matches the terminal control sequences programs colour their
// output with: CSI (colours, cursor moves) and OSC (titles, links). It is
// compiled on first use: most runs never strip anything, and every run
// would otherwise pay for it at start-up.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)
})

// StripANSI removes colour and other control sequences from s.
func StripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiEscape().ReplaceAllString(s, "")
}
