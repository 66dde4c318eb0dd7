package sdktest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SelfAsABX is the running test binary under the name abx, in a temporary
// directory: a test binary whose TestMain runs the command line when it is
// called abx becomes the abx a script spawns.
func SelfAsABX(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "abx")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// EnvironWithout is this process's environment less the variables with
// these prefixes: those that would configure abx, the SDKs, proxies or
// directories behind a test's back.
func EnvironWithout(prefixes ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			env = append(env, kv)
		}
	}
	return env
}
