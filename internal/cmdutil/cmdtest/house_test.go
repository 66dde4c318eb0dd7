package cmdtest

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/housetest"
)

// cmdtest knows no provider: a test hands it its own (Sandboxes), and the
// Factory abx builds, with the providers abx has, is factorytest's. So it
// links no concrete provider (every one lives below internal/provider/),
// nor the factory that registers them.
func TestNoProviderInCmdtest(t *testing.T) {
	t.Parallel()
	for _, dep := range housetest.Links(t, housetest.Module+"internal/cmdutil/cmdtest") {
		if strings.HasPrefix(dep, housetest.Module+"internal/provider/") || housetest.Within(dep, housetest.Module+"internal/cmd/factory") {
			t.Errorf("cmdtest links %s", dep)
		}
	}
}
