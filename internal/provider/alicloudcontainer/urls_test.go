package alicloudcontainer

import (
	"testing"
	"time"
)

func TestURLRules(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		sbDomain  string
		id        string
		port      int
		wantAPI   string
		wantPort  string
		wantError string
	}{
		{name: "native", cfg: Config{Domain: "agents.example.com", Protocol: "native"},
			id: "sb1", port: 49983,
			wantAPI: "https://api.agents.example.com", wantPort: "https://49983-sb1.agents.example.com"},
		{name: "native id with --", cfg: Config{Domain: "agents.example.com", Protocol: "native"},
			id: "default--code-interpreter-x7k2p", port: 8080,
			wantAPI: "https://api.agents.example.com", wantPort: "https://8080-default--code-interpreter-x7k2p.agents.example.com"},
		{name: "native domain with port", cfg: Config{Domain: "agents.example.com:8443", Protocol: "native"},
			id: "sb1", port: 49999,
			wantAPI: "https://api.agents.example.com:8443", wantPort: "https://49999-sb1.agents.example.com:8443"},
		{name: "native sandbox domain wins", cfg: Config{Domain: "agents.example.com", Protocol: "native"},
			sbDomain: "cn-hz.example.net", id: "sb1", port: 49983,
			wantAPI: "https://api.agents.example.com", wantPort: "https://49983-sb1.cn-hz.example.net"},
		{name: "native base_url replaces the API only", cfg: Config{Domain: "agents.example.com", BaseURL: "http://127.0.0.1:8080/", Protocol: "native"},
			id: "sb1", port: 3000,
			wantAPI: "http://127.0.0.1:8080", wantPort: "https://3000-sb1.agents.example.com"},
		{name: "native base_url without domain has no data plane", cfg: Config{BaseURL: "http://127.0.0.1:8080", Protocol: "native"},
			id: "sb1", port: 3000, wantAPI: "http://127.0.0.1:8080", wantError: "no domain for the sandbox data plane"},
		{name: "native id that is no host label", cfg: Config{Domain: "agents.example.com", Protocol: "native"},
			id: "ns.sb_1", port: 3000, wantAPI: "https://api.agents.example.com", wantError: "cannot be part of a host name"},
		{name: "an ID that would move the path", cfg: Config{Domain: "agents.example.com", Protocol: "private"},
			id: "..", port: 3000, wantAPI: "https://agents.example.com/kruise/api", wantError: `invalid sandbox ID ".."`},
		{name: "private", cfg: Config{Domain: "agents.example.com", Protocol: "private"},
			id: "sb1", port: 49983,
			wantAPI: "https://agents.example.com/kruise/api", wantPort: "https://agents.example.com/kruise/sb1/49983"},
		{name: "private id with --", cfg: Config{Domain: "agents.example.com", Protocol: "private"},
			id: "default--code-interpreter-x7k2p", port: 49999,
			wantAPI: "https://agents.example.com/kruise/api", wantPort: "https://agents.example.com/kruise/default--code-interpreter-x7k2p/49999"},
		{name: "private domain with port", cfg: Config{Domain: "10.0.0.5:30443", Protocol: "private"},
			id: "sb1", port: 8080,
			wantAPI: "https://10.0.0.5:30443/kruise/api", wantPort: "https://10.0.0.5:30443/kruise/sb1/8080"},
		{name: "private http base_url serves the data plane too", cfg: Config{BaseURL: "http://127.0.0.1:18080/kruise/api", Protocol: "private"},
			sbDomain: "agents.example.com", id: "default--base-abcde", port: 49983,
			wantAPI: "http://127.0.0.1:18080/kruise/api", wantPort: "http://127.0.0.1:18080/kruise/default--base-abcde/49983"},
		{name: "private sandbox domain wins without base_url", cfg: Config{Domain: "agents.example.com", Protocol: "private"},
			sbDomain: "gw.example.net", id: "sb1", port: 1,
			wantAPI: "https://agents.example.com/kruise/api", wantPort: "https://gw.example.net/kruise/sb1/1"},
		{name: "private takes IDs that are no host label", cfg: Config{Domain: "agents.example.com", Protocol: "private"},
			id: "ns.sb_1", port: 65535,
			wantAPI: "https://agents.example.com/kruise/api", wantPort: "https://agents.example.com/kruise/ns.sb_1/65535"},
		{name: "port zero", cfg: Config{Domain: "agents.example.com", Protocol: "private"},
			id: "sb1", port: 0, wantAPI: "https://agents.example.com/kruise/api", wantError: "out of range"},
		{name: "port too big", cfg: Config{Domain: "agents.example.com", Protocol: "native"},
			id: "sb1", port: 65536, wantAPI: "https://api.agents.example.com", wantError: "out of range"},
		{name: "empty ID", cfg: Config{Domain: "agents.example.com", Protocol: "native"},
			id: "", port: 80, wantAPI: "https://api.agents.example.com", wantError: `invalid sandbox ID ""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.APIBase(); got != tc.wantAPI {
				t.Errorf("APIBase() = %q, want %q", got, tc.wantAPI)
			}
			got, err := tc.cfg.PortURL(tc.id, tc.sbDomain, tc.port)
			if tc.wantError != "" {
				if err == nil || !contains(err.Error(), tc.wantError) {
					t.Fatalf("PortURL() error = %v, want %q", err, tc.wantError)
				}
				return
			}
			if err != nil || got != tc.wantPort {
				t.Errorf("PortURL() = %q, %v; want %q", got, err, tc.wantPort)
			}
		})
	}
}

func TestConfigProblems(t *testing.T) {
	ok := Config{Domain: "a.example.com", APIKey: "k", Protocol: "native", EnvdPort: 49983, RequestTimeout: time.Second}
	if p := ok.Problems(); len(p) != 0 {
		t.Fatalf("valid config has problems: %v", p)
	}
	cases := map[string]struct {
		mutate func(*Config)
		want   string
	}{
		"no domain":        {func(c *Config) { c.Domain = "" }, "ABX_ALICLOUD_CONTAINER_DOMAIN"},
		"no key":           {func(c *Config) { c.APIKey = "" }, "ABX_ALICLOUD_CONTAINER_API_KEY"},
		"bad protocol":     {func(c *Config) { c.Protocol = "grpc" }, "ABX_ALICLOUD_CONTAINER_PROTOCOL"},
		"relative base":    {func(c *Config) { c.BaseURL = "/kruise/api" }, "ABX_ALICLOUD_CONTAINER_BASE_URL"},
		"domain with path": {func(c *Config) { c.Domain = "a.example.com/x" }, "ABX_ALICLOUD_CONTAINER_DOMAIN"},
		"port":             {func(c *Config) { c.EnvdPort = 0 }, "ABX_ALICLOUD_CONTAINER_ENVD_PORT"},
		"timeout":          {func(c *Config) { c.RequestTimeout = 0 }, "ABX_ALICLOUD_CONTAINER_REQUEST_TIMEOUT"},
		"idle below 10s":   {func(c *Config) { c.IdleTimeout = 9 * time.Second }, "idle timeout 9s is below 10s"},
		"negative idle":    {func(c *Config) { c.IdleTimeout = -time.Second }, "ABX_ALICLOUD_CONTAINER_IDLE_TIMEOUT"},
		"retries":          {func(c *Config) { c.Retries = 11 }, "ABX_ALICLOUD_CONTAINER_RETRIES"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			p := c.Problems()
			if len(p) != 1 {
				t.Fatalf("problems = %v, want one", p)
			}
			if !contains(hintOf(p[0])+p[0].Error(), tc.want) {
				t.Errorf("problem %q (hint %q) does not name %s", p[0].Error(), hintOf(p[0]), tc.want)
			}
		})
	}
	for _, idle := range []time.Duration{0, 10 * time.Second} {
		c := ok
		c.IdleTimeout = idle
		if p := c.Problems(); len(p) != 0 {
			t.Errorf("idle timeout %s: %v", idle, p)
		}
	}
	base := Config{BaseURL: "http://127.0.0.1:1", APIKey: "k", Protocol: "private", EnvdPort: 1, RequestTimeout: time.Second}
	if p := base.Problems(); len(p) != 0 {
		t.Errorf("base_url without domain should do: %v", p)
	}
}
