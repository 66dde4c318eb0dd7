package envd

import (
	"testing"

	"github.com/abx-dev/abx/internal/housetest"
)

// Connect is envd's wire, and this package its one client: the rest of
// abx hears envd's answers in this package's words (AsError's codes,
// IsNotFound, IsAlreadyExists, IsDenied, IsCut), so no other package
// imports Connect. The emulator's envd serves it; tests may build servers
// and answers with it.
func TestConnectStaysInEnvd(t *testing.T) {
	t.Parallel()
	allowed := []string{housetest.Module + "internal/envd", housetest.Module + "internal/emulator"}
	for _, p := range housetest.List(t, housetest.Module+"...") {
		if housetest.Within(p.ImportPath, allowed...) {
			continue
		}
		for _, imp := range p.Imports {
			if housetest.Within(imp, "connectrpc.com/connect") {
				t.Errorf("%s imports %s: say envd's answers through package envd", p.ImportPath, imp)
			}
		}
	}
}
