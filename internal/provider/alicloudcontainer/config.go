// Package alicloudcontainer is the provider for the OpenKruise Agents
// sandbox-manager on Alibaba Cloud ACS/ACK: its settings, URL rules and
// control-plane client.
package alicloudcontainer

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Name is the provider's name on the command line.
const Name = "alicloud-container"

const envPrefix = "ABX_ALICLOUD_CONTAINER_"

// Protocols of the sandbox gateway (docs/protocol.md, "Gateway URLs and
// protocols").
const (
	ProtocolNative  = "native"
	ProtocolPrivate = "private"
)

// Config is this provider's configuration, filled from flags and environment.
type Config struct {
	Domain         string        `mapstructure:"domain"`
	BaseURL        string        `mapstructure:"base_url"`
	APIKey         string        `mapstructure:"api_key"`
	Protocol       string        `mapstructure:"protocol"`
	EnvdPort       int           `mapstructure:"envd_port"`
	RequestTimeout time.Duration `mapstructure:"request_timeout"`
	Retries        int           `mapstructure:"retries"`
	IdleTimeout    time.Duration `mapstructure:"idle_timeout"`
}

// Settings are the values this provider reads, with their flags and variables.
var Settings = []provider.Setting{
	{Key: "domain", Flag: "domain", Env: envPrefix + "DOMAIN",
		Usage: "sandbox-manager domain, e.g. agents.example.com (may carry :port)"},
	{Key: "base_url", Flag: "base-url", Env: envPrefix + "BASE_URL",
		Usage: "API origin overriding the one built from the domain, e.g. http://127.0.0.1:8080/kruise/api"},
	{Key: "api_key", Flag: "api-key", Env: envPrefix + "API_KEY", Secret: true,
		Usage: "API key, sent as X-API-Key to the API origin only (prefer the variable or --api-key-file: flags show in ps)"},
	{Key: "api_key_file", Flag: "api-key-file", Env: envPrefix + "API_KEY_FILE", FileOf: "api_key",
		Usage: "read the API key from this file ('-' for stdin)"},
	{Key: "protocol", Flag: "protocol", Env: envPrefix + "PROTOCOL", Default: ProtocolNative,
		Usage: "URL protocol of the gateway: native or private"},
	{Key: "envd_port", Flag: "envd-port", Env: envPrefix + "ENVD_PORT", Default: strconv.Itoa(provider.EnvdPort), Kind: provider.Int,
		Usage: "port envd listens on inside sandboxes"},
	{Key: "request_timeout", Flag: "request-timeout", Env: envPrefix + "REQUEST_TIMEOUT", Default: "30s",
		Kind: provider.Duration, Usage: "deadline of each API call, its retries included (Go duration or seconds)"},
	{Key: "retries", Flag: "retries", Env: envPrefix + "RETRIES", Default: "3", Kind: provider.Int,
		Usage: "how often an idempotent API call is tried again after a connection error, 429, 502, 503 or 504 (0 for never)"},
	{Key: "idle_timeout", Flag: "idle-timeout", Env: envPrefix + "IDLE_TIMEOUT", Default: "60s",
		Kind: provider.Duration, Usage: "how long a stream (exec, ps attach, run-code, file transfers) may pass no byte, keepalives included, before abx gives up on it (at least 10s; 0 for no bound)"},
}

// Descriptor registers this provider.
func Descriptor() *provider.Descriptor {
	return &provider.Descriptor{
		Name:     Name,
		Summary:  "OpenKruise Agents sandbox-manager on Alibaba Cloud ACS/ACK",
		Settings: Settings,
		// What every provider has, what envd gives its sandboxes, and the
		// optional capabilities of the interfaces the client implements.
		Capabilities: append([]provider.Capability{
			provider.SandboxLifecycle, provider.SandboxTimeout, provider.SandboxPause,
			provider.ExecRun, provider.ExecStream, provider.ProcessManage, provider.FilesRW,
			provider.FilesWatch, provider.PTY, provider.SandboxMetrics, provider.CodeInterpret, provider.PortsURL,
		}, provider.Optional((*Client)(nil))...),
		NewConfig: func() provider.Config { return &Config{} },
		Open: func(c provider.Config, deps provider.Deps) (provider.Provider, error) {
			return New(*c.(*Config), deps)
		},
	}
}

// Problems lists what keeps the config from being used, each naming the
// variable and flag that fix it.
func (c *Config) Problems() []error {
	var out []error
	switch c.Protocol {
	case ProtocolNative, ProtocolPrivate:
	default:
		out = append(out, abxerr.New(abxerr.InvalidConfig, "unknown protocol %q", c.Protocol).
			WithHint("set %sPROTOCOL or --protocol to native or private", envPrefix))
	}
	if c.BaseURL != "" {
		if problem := baseURLProblem(c.BaseURL); problem != "" {
			out = append(out, abxerr.New(abxerr.InvalidConfig, "base URL%s %s", redactURL(c.BaseURL), problem).
				WithHint("set %sBASE_URL or --base-url to a URL like https://agents.example.com/kruise/api", envPrefix))
		}
	}
	if c.Domain == "" && c.BaseURL == "" {
		out = append(out, abxerr.New(abxerr.MissingConfig, "no domain configured").
			WithHint("set %sDOMAIN or --domain (or %sBASE_URL)", envPrefix, envPrefix))
	}
	if strings.Contains(c.Domain, "@") {
		// Not echoed: what comes before the @ may be a password.
		out = append(out, abxerr.New(abxerr.InvalidConfig, "the domain carries a user or password (@)").
			WithHint("set %sDOMAIN or --domain to the host name alone, like agents.example.com", envPrefix))
	} else if c.Domain != "" {
		if u, err := url.Parse("https://" + c.Domain); err != nil || u.Host != c.Domain || u.Hostname() == "" || !validPort(u.Port()) {
			out = append(out, abxerr.New(abxerr.InvalidConfig, "domain %q is not a host name", c.Domain).
				WithHint("set %sDOMAIN or --domain to a name like agents.example.com, without scheme or path", envPrefix))
		}
	}
	if c.APIKey == "" {
		out = append(out, abxerr.New(abxerr.MissingConfig, "no API key configured").
			WithHint("set %sAPI_KEY or pass --api-key-file", envPrefix))
	} else if strings.IndexFunc(c.APIKey, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		// A header cannot carry it, and a key split across lines is a
		// paste or file mistake; the key itself is never shown.
		out = append(out, abxerr.New(abxerr.InvalidConfig, "the API key holds a space, a line break or another control character").
			WithHint("set %sAPI_KEY or --api-key-file to the key alone, on one line", envPrefix))
	}
	if c.EnvdPort < 1 || c.EnvdPort > 65535 {
		out = append(out, abxerr.New(abxerr.InvalidConfig, "envd port %d is out of range 1..65535", c.EnvdPort).
			WithHint("set %sENVD_PORT or --envd-port", envPrefix))
	}
	if c.RequestTimeout <= 0 {
		out = append(out, abxerr.New(abxerr.InvalidConfig, "request timeout must be positive").
			WithHint("set %sREQUEST_TIMEOUT or --request-timeout to a duration like 30s", envPrefix))
	}
	if c.IdleTimeout < 0 || (c.IdleTimeout > 0 && c.IdleTimeout < MinIdleTimeout) {
		out = append(out, abxerr.New(abxerr.InvalidConfig, "idle timeout %s is below %s", c.IdleTimeout, MinIdleTimeout).
			WithHint("set %sIDLE_TIMEOUT or --idle-timeout to a duration like 60s, or 0 for no bound", envPrefix))
	}
	if c.Retries < 0 || c.Retries > maxRetries {
		out = append(out, abxerr.New(abxerr.InvalidConfig, "retries %d is out of range 0..%d", c.Retries, maxRetries).
			WithHint("set %sRETRIES or --retries", envPrefix))
	}
	return out
}

// baseURLProblem says what is wrong with a base URL, or "". It must be an
// absolute http(s) URL of a host, with a valid port if any, and carry no
// credentials (the key goes in its header, to this origin only), no query
// and no fragment: paths are appended to it, and a query or fragment would
// swallow them.
func baseURLProblem(raw string) string {
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "holds a space or a control character"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return "is not an absolute http(s) URL"
	case u.User != nil:
		return "carries a user or password; abx sends the API key in its own header, so leave them out"
	case u.RawQuery != "" || u.ForceQuery:
		return "has a query (?...), which abx cannot append paths to"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "has a fragment (#...), which abx cannot append paths to"
	case u.Hostname() == "":
		return "has no host"
	case !validPort(u.Port()):
		return "has a port outside 1..65535"
	}
	return ""
}

// validPort is "" (the scheme's) or a number in 1..65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// redactURL quotes a URL for an error, after a space, with its password
// replaced; one that does not parse is not shown, as its password could
// not be found.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return " " + strconv.Quote(u.Redacted())
	}
	return ""
}

// MinIdleTimeout is the shortest idle bound: a quiet stream must fit its
// keepalives (envd's at a third of the bound, the code interpreter's every
// 5 s) with room to spare. It is a variable only so that tests which wait
// out a stalled stream can lower it before they start: the bound works the
// same at any length.
var MinIdleTimeout = 10 * time.Second

// maxRetries bounds --retries: past it a call is waiting on a service
// that is down, and the deadline says so better.
const maxRetries = 10
