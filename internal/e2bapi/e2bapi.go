// Package e2bapi is the E2B HTTP API's shapes, written once for the three
// parts of abx that speak it: the provider's client, which sends them to a
// sandbox-manager; the engine, which serves them to E2B's SDKs; and the
// emulator's manager, which answers as a sandbox-manager does
// (docs/protocol.md, "Control plane"). Names follow E2B's spec/openapi.yml
// (NewSandbox, Sandbox, SandboxMetric, Error); where sandbox-manager's
// answers differ from E2B's, its words are kept, since they are what a
// client meets.
package e2bapi

import (
	"encoding/json"
	"time"
)

// NewSandbox is the body of POST /sandboxes and POST /v2/sandboxes.
// allow_internet_access is snake case on the wire, unlike its neighbours.
type NewSandbox struct {
	TemplateID          string            `json:"templateID"`
	Timeout             int64             `json:"timeout,omitempty"` // seconds; 0: the server's default
	AutoPause           bool              `json:"autoPause,omitempty"`
	AllowInternetAccess *bool             `json:"allow_internet_access,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
	EnvVars             map[string]string `json:"envVars,omitempty"`
	// Lifecycle is what newer SDKs send for autoPause: onTimeout "kill"
	// or "pause". sandbox-manager does not read it.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Network holds egress rules, applied once the sandbox is claimed.
	Network *Network `json:"network,omitempty"`
}

// Lifecycle says what happens to a sandbox whose timeout passes.
type Lifecycle struct {
	OnTimeout string `json:"onTimeout"`
}

// Timeout is the body of /connect, /resume and /timeout: seconds.
type Timeout struct {
	Timeout int64 `json:"timeout"`
}

// TrafficAccessToken is the answer of sandbox-manager's refresh of a
// sandbox's traffic token (POST /kruise/api/sandboxes/{id}/traffic-access-token).
type TrafficAccessToken struct {
	TrafficAccessToken           string `json:"trafficAccessToken"`
	TrafficAccessTokenExpiration string `json:"trafficAccessTokenExpiration"`
}

// Sandbox is a sandbox as create, connect, info and the list items give
// it. Times are strings: sandbox-manager sends "<unknown>" for a sandbox
// without a claim time (Time reads them). A list item carries no token.
type Sandbox struct {
	TemplateID         string `json:"templateID"`
	SandboxID          string `json:"sandboxID"`
	ClientID           string `json:"clientID"`
	Alias              string `json:"alias"`
	StartedAt          string `json:"startedAt"`
	EndAt              string `json:"endAt"`
	EnvdVersion        string `json:"envdVersion"`
	EnvdAccessToken    string `json:"envdAccessToken,omitempty"`
	TrafficAccessToken string `json:"trafficAccessToken,omitempty"`
	// TrafficAccessTokenExpiration is when the traffic token stops being
	// valid (RFC 3339), sent beside it by a cluster whose tokens expire.
	TrafficAccessTokenExpiration string            `json:"trafficAccessTokenExpiration,omitempty"`
	Domain                       string            `json:"domain,omitempty"`
	CPUCount                     int               `json:"cpuCount"`
	MemoryMB                     int               `json:"memoryMB"`
	DiskSizeMB                   int               `json:"diskSizeMB"`
	Metadata                     map[string]string `json:"metadata"`
	State                        string            `json:"state"`
	// Network is the sandbox's egress rules, in a describe of a sandbox
	// that has some.
	Network *Network `json:"network,omitempty"`
}

// FormatTime writes a time as the API does: RFC 3339 with its fraction of
// a second (Go's encoding of a time.Time, which the servers use), UTC.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Time reads a time of the API; anything else ("<unknown>") is the zero
// time, which abx shows as unknown.
func Time(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() <= 1 {
		return time.Time{}
	}
	return t
}

// Metric is a SandboxMetric: one sample of a sandbox, sizes in bytes.
// timestamp is deprecated in E2B's spec but still what the SDKs read.
type Metric struct {
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

// SandboxesMetrics answers GET /sandboxes/metrics: each sandbox's sample,
// by ID.
type SandboxesMetrics struct {
	Sandboxes map[string]Metric `json:"sandboxes"`
}

// Error is the API's error envelope. code may disagree with the HTTP
// status (sandbox-manager sends 0 for a body it could not decode); the
// status is what counts. sandbox-manager adds "headers": null and its
// request_id (Headers is then NoHeaders); abx's engine adds abxCode,
// abx's own code.
type Error struct {
	Code      int             `json:"code"`
	Message   string          `json:"message"`
	Headers   json.RawMessage `json:"headers,omitempty"`
	RequestID string          `json:"request_id,omitempty"`
	AbxCode   string          `json:"abxCode,omitempty"`
}

// NoHeaders is sandbox-manager's "headers": null.
var NoHeaders = json.RawMessage("null")

// TrafficAuthKey is the metadata key by which a sandbox opts in to a
// guarded data plane: created with it "true", it gets a traffic token
// that expires, and its gateway refuses every request for its ports
// without a valid one in TrafficTokenHeader. A describe shows the key
// among the sandbox's metadata; it carries no token.
const TrafficAuthKey = "security.agents.kruise.io/enable-jwt-auth"

// TrafficTokenHeader carries a sandbox's traffic token to its gateway.
const TrafficTokenHeader = "E2B-Traffic-Access-Token"

// NewSnapshot is the body of POST /sandboxes/{id}/snapshots: sandbox-manager
// reads a JSON object (a missing body is its 500, "EOF") and keeps no name.
type NewSnapshot struct {
	Name string `json:"name,omitempty"`
}

// SnapshotInfo is a snapshot as sandbox-manager answers it: taken (201)
// and in a listing (GET /snapshots), whose names it leaves null.
type SnapshotInfo struct {
	SnapshotID string   `json:"snapshotID"`
	Names      []string `json:"names"`
}

// sandbox-manager's extension headers of a snapshot (docs/protocol.md,
// "Snapshots").
const (
	HeaderSnapshotKeepRunning = "X-E2b-Kruise-Snapshot-Keep-Running"
	HeaderSnapshotTTL         = "X-E2b-Kruise-Snapshot-Ttl"
	HeaderSnapshotContents    = "X-E2b-Kruise-Snapshot-Persistent-Contents"
	HeaderSnapshotWait        = "X-E2b-Kruise-Snapshot-Wait-Success-Seconds"
)

// Metadata keys sandbox-manager takes, and takes out of the metadata, for
// a clone's name: one of them, on a create from a snapshot only.
const (
	MetadataSandboxName         = "e2b.agents.kruise.io/sandbox-name"
	MetadataSandboxGenerateName = "e2b.agents.kruise.io/sandbox-generate-name"
)
