package alicloudcontainer

import (
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// newSandbox is the body of POST /sandboxes. allow_internet_access is snake
// case on the wire, unlike its neighbours.
type newSandbox struct {
	TemplateID          string            `json:"templateID"`
	Timeout             int64             `json:"timeout,omitempty"`
	AutoPause           bool              `json:"autoPause,omitempty"`
	AllowInternetAccess *bool             `json:"allow_internet_access,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
	EnvVars             map[string]string `json:"envVars,omitempty"`
}

// timeoutBody is the body of /connect, /resume and /timeout.
type timeoutBody struct {
	Timeout int64 `json:"timeout"`
}

// wireSandbox is the server's Sandbox. Times are strings because the server
// sends "<unknown>" for a sandbox without a claim time.
type wireSandbox struct {
	TemplateID  string            `json:"templateID"`
	SandboxID   string            `json:"sandboxID"`
	ClientID    string            `json:"clientID"`
	Alias       string            `json:"alias"`
	StartedAt   string            `json:"startedAt"`
	EndAt       string            `json:"endAt"`
	EnvdVersion string            `json:"envdVersion"`
	Domain      string            `json:"domain"`
	CPUCount    int               `json:"cpuCount"`
	MemoryMB    int               `json:"memoryMB"`
	DiskSizeMB  int               `json:"diskSizeMB"`
	Metadata    map[string]string `json:"metadata"`
	State       string            `json:"state"`

	// Secrets of the data plane: kept for Endpoint, never put in the model.
	EnvdAccessToken    string `json:"envdAccessToken"`
	TrafficAccessToken string `json:"trafficAccessToken"`
}

// check refuses a sandbox the service described without its ID (an empty
// or null answer, a null in a list): nothing can be done with it, and
// printing it would show a blank where the ID belongs.
func (w *wireSandbox) check(method, path string) error {
	if w == nil || w.SandboxID == "" {
		return abxerr.New(abxerr.BadResponse, "the service answered %s %s with a sandbox without a sandboxID", method, path).
			WithHint("the service's answer is malformed; run again with --debug to see it")
	}
	return nil
}

func (w *wireSandbox) model() provider.Sandbox {
	md := w.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return provider.Sandbox{
		SandboxID:   w.SandboxID,
		TemplateID:  w.TemplateID,
		Alias:       w.Alias,
		ClientID:    w.ClientID,
		State:       w.State,
		StartedAt:   parseTime(w.StartedAt),
		EndAt:       parseTime(w.EndAt),
		CPUCount:    w.CPUCount,
		MemoryMB:    w.MemoryMB,
		DiskSizeMB:  w.DiskSizeMB,
		EnvdVersion: w.EnvdVersion,
		Domain:      w.Domain,
		Metadata:    md,
	}
}

// parseTime reads an RFC 3339 time; anything else is the zero time, which
// output shows as unknown.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() <= 1 {
		return time.Time{}
	}
	return t
}
