package cmdutil_test

import (
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
)

func TestSettingsFillTheConfig(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                           "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_DOMAIN":          "agents.example.com",
		"ABX_ALICLOUD_CONTAINER_API_KEY":         "k",
		"ABX_ALICLOUD_CONTAINER_ENVD_PORT":       "010", // decimal, as checked
		"ABX_ALICLOUD_CONTAINER_REQUEST_TIMEOUT": "90",
		"ABX_ALICLOUD_CONTAINER_IDLE_TIMEOUT":    "2m",
	}, "")
	if err := cmdtest.Select(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Flags.Set("retries", "7"); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := f.BindSettings(f.Descriptor, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := alicloudcontainer.Config{
		Domain: "agents.example.com", APIKey: "k", Protocol: "native", EnvdPort: 10,
		RequestTimeout: 90 * time.Second, Retries: 7, IdleTimeout: 2 * time.Minute,
	}
	if got := *cfg.(*alicloudcontainer.Config); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestAnEmptyDurationIsRefused(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.NewFactory(false, map[string]string{"ABX_PROVIDER": "alicloud-container"}, "")
	if err := cmdtest.Select(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Flags.Set("idle-timeout", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.BindSettings(f.Descriptor, nil); err == nil || !strings.Contains(err.Error(), "idle_timeout") {
		t.Errorf("got %v", err)
	}
}
