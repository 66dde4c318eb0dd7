package alicloudcontainer

import (
	"testing"

	"github.com/abx-dev/abx/internal/housetest"
)

// The provider speaks to the control plane and hands out endpoints; the
// clients of the servers in a sandbox are given those endpoints and are
// linked by whoever talks to them. So the provider links none of them:
// not envd's client nor its generated code, not Connect, not the code
// interpreter's client. A program that only manages sandboxes pays for
// none of it.
func TestNoDataPlaneClientInTheProvider(t *testing.T) {
	t.Parallel()
	housetest.Refuse(t, housetest.Module+"internal/provider/alicloudcontainer",
		housetest.Module+"internal/envd", housetest.Module+"internal/codeinterp",
		"connectrpc.com/connect", "google.golang.org/protobuf")
}
