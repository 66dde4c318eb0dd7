//go:build unix

// Package emutest starts the emulator's cluster for tests of the commands
// that need one. It is apart from cmdtest so that the commands' tests that
// need no cluster do not link the emulator.
package emutest

import (
	"net/http/httptest"
	"testing"

	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/manager"
)

// Key is the fake cluster's API key.
const Key = "sk-unit-test"

// Cluster starts the fake sandbox-manager behind the gateway (real
// envd and code interpreter fakes per sandbox, envd 0.2.10) and returns it
// with the environment that points abx at it. tune, if any, changes the
// manager's options first (a traffic-token validity of seconds).
func Cluster(t *testing.T, tune ...func(*manager.Options)) (*manager.Server, map[string]string) {
	t.Helper()
	opts := manager.Options{APIKey: Key, Domain: "abx.test", KeepRequests: true}
	for _, f := range tune {
		f(&opts)
	}
	srv := manager.New(opts)
	gw := emulator.NewGateway(srv, t.TempDir(), "0.2.10")
	// Isolated as the emulator is, where this machine allows it: the
	// boxes' inits are copies of the test binary (package boxinit's init).
	gw.Isolated = jail.Available() == nil
	ts := httptest.NewServer(gw)
	// Cleanups run last first: the gateway stops its sandboxes' processes
	// and kernels before the server waits for the requests they hold open.
	t.Cleanup(ts.Close)
	t.Cleanup(gw.Close)
	return srv, map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": ts.URL,
		"ABX_ALICLOUD_CONTAINER_API_KEY":  Key,
	}
}
