//go:build unix

package mcpserver_test

import (
	"testing"

	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/mcpserver"
)

// onEmulator returns the options of a server over a fresh emulated
// cluster, and the cluster's manager (the requests it was sent).
func onEmulator(t *testing.T) (mcpserver.Options, *manager.Server) {
	t.Helper()
	m, env := emutest.Cluster(t)
	return over(t, env["ABX_ALICLOUD_CONTAINER_BASE_URL"], emutest.Key), m
}
