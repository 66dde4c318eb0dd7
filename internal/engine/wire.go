package engine

import (
	"time"

	"github.com/abx-dev/abx/internal/provider"
)

// The E2B API's shapes, as the official SDKs read them (spec/openapi.yml
// of E2B's infra: NewSandbox, Sandbox, SandboxDetail, ListedSandbox,
// SandboxMetric, SandboxesWithMetrics, Error).

// newSandbox is the body of POST /sandboxes and POST /v2/sandboxes.
type newSandbox struct {
	TemplateID          string            `json:"templateID"`
	Timeout             int               `json:"timeout"` // seconds; 0: the server's default
	AutoPause           bool              `json:"autoPause"`
	Metadata            map[string]string `json:"metadata"`
	EnvVars             map[string]string `json:"envVars"`
	AllowInternetAccess *bool             `json:"allow_internet_access"`
	Lifecycle           *struct {
		OnTimeout string `json:"onTimeout"` // "kill" or "pause"
	} `json:"lifecycle"`
}

// sandboxJSON answers create, connect and resume. The envd access token
// and the traffic token handed to local clients are the engine's own: the
// sandbox's stay in abx. The SDKs send the first to envd and /execute, the
// second to the interpreter's /contexts, which carry no other.
type sandboxJSON struct {
	TemplateID         string `json:"templateID"`
	SandboxID          string `json:"sandboxID"`
	Alias              string `json:"alias,omitempty"`
	ClientID           string `json:"clientID"`
	EnvdVersion        string `json:"envdVersion"`
	EnvdAccessToken    string `json:"envdAccessToken,omitempty"`
	TrafficAccessToken string `json:"trafficAccessToken,omitempty"`
	Domain             string `json:"domain,omitempty"`
}

// detailJSON answers GET /sandboxes/{id} and is one item of the lists.
type detailJSON struct {
	TemplateID         string            `json:"templateID"`
	Alias              string            `json:"alias,omitempty"`
	SandboxID          string            `json:"sandboxID"`
	ClientID           string            `json:"clientID"`
	StartedAt          time.Time         `json:"startedAt"`
	EndAt              time.Time         `json:"endAt"`
	EnvdVersion        string            `json:"envdVersion"`
	EnvdAccessToken    string            `json:"envdAccessToken,omitempty"`
	TrafficAccessToken string            `json:"trafficAccessToken,omitempty"`
	Domain             string            `json:"domain,omitempty"`
	CPUCount           int               `json:"cpuCount"`
	MemoryMB           int               `json:"memoryMB"`
	DiskSizeMB         int               `json:"diskSizeMB"`
	Metadata           map[string]string `json:"metadata"`
	State              string            `json:"state"`
}

// metricJSON is a SandboxMetric: one sample of a sandbox, sizes in bytes.
// timestamp is deprecated in E2B's spec but still what the SDKs read.
type metricJSON struct {
	Timestamp     time.Time `json:"timestamp"`
	TimestampUnix int64     `json:"timestampUnix"`
	CPUCount      int       `json:"cpuCount"`
	CPUUsedPct    float64   `json:"cpuUsedPct"`
	MemUsed       int64     `json:"memUsed"`
	MemTotal      int64     `json:"memTotal"`
	MemCache      int64     `json:"memCache"`
	DiskUsed      int64     `json:"diskUsed"`
	DiskTotal     int64     `json:"diskTotal"`
}

// sandboxesMetricsJSON answers GET /sandboxes/metrics (SandboxesWithMetrics).
type sandboxesMetricsJSON struct {
	Sandboxes map[string]metricJSON `json:"sandboxes"`
}

// errorJSON is E2B's error envelope; abx adds its own code.
type errorJSON struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	AbxCode string `json:"abxCode,omitempty"`
}

// sandbox and detail hand a sandbox to a local client: every word of the
// provider's redacted (its metadata may hold a key), and the engine's
// token in the sandbox's own tokens' place.
func (e *Engine) sandbox(s *provider.Sandbox) sandboxJSON {
	return sandboxJSON{TemplateID: e.redact(s.TemplateID), SandboxID: e.redact(s.SandboxID), Alias: e.redact(s.Alias),
		ClientID: e.redact(clientID(s)), EnvdVersion: e.redact(s.EnvdVersion), EnvdAccessToken: e.token,
		TrafficAccessToken: e.token, Domain: e.domain}
}

func (e *Engine) detail(s *provider.Sandbox) detailJSON {
	md := make(map[string]string, len(s.Metadata))
	for k, v := range s.Metadata {
		md[e.redact(k)] = e.redact(v)
	}
	return detailJSON{TemplateID: e.redact(s.TemplateID), Alias: e.redact(s.Alias), SandboxID: e.redact(s.SandboxID),
		ClientID: e.redact(clientID(s)), StartedAt: s.StartedAt, EndAt: s.EndAt, EnvdVersion: e.redact(s.EnvdVersion),
		EnvdAccessToken: e.token, TrafficAccessToken: e.token, Domain: e.domain, CPUCount: s.CPUCount, MemoryMB: s.MemoryMB,
		DiskSizeMB: s.DiskSizeMB, Metadata: md, State: e.redact(s.State)}
}

func clientID(s *provider.Sandbox) string {
	if s.ClientID != "" {
		return s.ClientID
	}
	return "abx"
}
