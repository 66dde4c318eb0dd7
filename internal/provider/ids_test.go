package provider

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// A sandbox ID goes into URL paths and host names: one that no service
// issues, and that could move the request elsewhere, is refused by every
// door alike.
func TestCheckSandboxID(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{
		"sb1":                              true,
		"default--code-interpreter-x7k2p":  true,
		"a.b_c-d":                          true,
		"":                                 false,
		".":                                false,
		"..":                               false,
		"../x":                             false,
		"a/b":                              false,
		`a\b`:                              false,
		"a b":                              false,
		"a%2fb":                            false,
		"a?b":                              false,
		"a#b":                              false,
		"a\x00b":                           false,
		"\u00e9":                           false,
		strings.Repeat("x", MaxIDLength):   true,
		strings.Repeat("x", MaxIDLength+1): false,
	} {
		err := CheckSandboxID(id)
		if (err == nil) != ok {
			t.Errorf("CheckSandboxID(%q) = %v, want ok %v", id, err, ok)
		}
		if err != nil && (err.Code != abxerr.InvalidInput || !strings.Contains(err.Message, "invalid sandbox ID")) {
			t.Errorf("CheckSandboxID(%q): %s %q", id, err.Code, err.Message)
		}
	}
}
