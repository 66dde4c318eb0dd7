package factory_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
)

const key = "e2b_0123456789abcdef0123456789abcdef01234567"

func TestSettingSecretsAreRegistered(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _ := factorytest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                        "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_API_KEY_FILE": file,
		"ABX_ALICLOUD_CONTAINER_BASE_URL":     "http://u:pa55word-x@127.0.0.1:1/api",
	}, "")
	_, _ = f.Provider() // the userinfo may be refused; its password is a secret all the same
	got := f.IO.Secrets.Redact("key " + key + " password pa55word-x")
	if got != "key REDACTED password REDACTED" {
		t.Errorf("got %q", got)
	}
}

// Whatever obtained a credential, the request that carries it registers it
// before the answer can echo it.
func TestRequestCredentialsAreRegistered(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(ts.Close)
	f, _ := factorytest.NewFactory(false, nil, "")
	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Header.Set("X-Access-Token", "envd-token-123456")
	req.Header.Set("E2B-Traffic-Access-Token", "traffic-token-123456")
	req.Header.Set("X-Next-Token", "page-cursor-123456")
	resp, err := f.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	got := f.IO.Secrets.Redact("envd-token-123456 traffic-token-123456 page-cursor-123456")
	if got != "REDACTED REDACTED page-cursor-123456" {
		t.Errorf("got %q", got)
	}
}

// abx config leaves a key on stdin unread: its placeholder is no secret.
func TestStdinPlaceholderIsNoSecret(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                        "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_API_KEY_FILE": "-",
	}, "")
	if _, err := f.Settings(); err != nil {
		t.Fatal(err)
	}
	if got := f.IO.Secrets.Redact("key from (stdin)"); got != "key from (stdin)" {
		t.Errorf("got %q", got)
	}
}
