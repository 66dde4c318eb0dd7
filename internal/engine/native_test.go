//go:build unix

package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/emulator/sdktest"
	"github.com/abx-dev/abx/internal/fakenet"
)

// The same SDK story through `abx provider engine exec`, the real command,
// against a sandbox-manager reached over the native protocol: its API at
// https://api.abx.test, each sandbox port at https://{port}-{id}.abx.test,
// all behind an HTTPS proxy and signed by a private CA, as a user behind a
// corporate proxy has it. The sandbox's web server is a public port
// there: a browser reaches it without the token.
func TestOfficialSDKsThroughTheEngineOverTheNativeProtocol(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "engine.test.mjs")
	const key = "sk-native-3b9e0a"
	srv := manager.New(manager.Options{APIKey: key, Domain: "abx.test", KeepRequests: true})
	gw := emulator.NewGateway(srv, t.TempDir(), "0.2.10")
	gw.Isolated = jail.Available() == nil
	t.Cleanup(gw.Close)
	secure, err := fakenet.NewTLS(gw, "abx.test", "*.abx.test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(secure.Close)
	proxy := fakenet.NewProxy(secure.Listener.Addr().String())
	t.Cleanup(proxy.Close)
	home := t.TempDir()
	ca := filepath.Join(home, "ca.pem")
	if err := os.WriteFile(ca, secure.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}

	port := fakenet.FreePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sdktest.SelfAsABX(t), "provider", "engine", "exec", "--public-port", strconv.Itoa(port), "--", "node", run)
	cmd.Dir = filepath.Dir(run)
	cmd.Env = append(sdktest.EnvironWithout("ABX_", "E2B_", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT"),
		"HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"ABX_PROVIDER=alicloud-container", "ABX_ALICLOUD_CONTAINER_API_KEY="+key,
		"ABX_ALICLOUD_CONTAINER_DOMAIN=abx.test", "ABX_ALICLOUD_CONTAINER_PROTOCOL=native",
		"HTTPS_PROXY="+proxy.URL, "SSL_CERT_FILE="+ca, "SERVE_PORT="+strconv.Itoa(port))
	out, err := cmd.CombinedOutput()
	sdktest.Steps(t, out, err, 22)

	// Everything went through the proxy, by the native names.
	var api, envd, served bool
	for _, h := range proxy.Hosts() {
		api = api || h == "api.abx.test:443"
		envd = envd || strings.HasPrefix(h, "49983-") && strings.HasSuffix(h, ".abx.test:443")
		served = served || strings.HasPrefix(h, strconv.Itoa(port)+"-")
	}
	if !api || !envd || !served {
		t.Errorf("the proxy was asked for %v", proxy.Hosts())
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("X-API-Key") != key {
			t.Errorf("a control-plane request without the provider's key: %s %s", r.Method, r.Path)
		}
	}
}
