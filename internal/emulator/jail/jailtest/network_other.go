//go:build !linux

package jailtest

import "testing"

// InTestNetwork skips t: network namespaces are Linux's.
func InTestNetwork(t testing.TB) bool {
	t.Helper()
	t.Skip("a network of its own for a test is Linux's")
	return false
}
