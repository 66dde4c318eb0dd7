// Package provider says what every sandbox provider is: the capabilities it
// declares, the settings it reads, the operations it offers and the plain Go
// values they return. It knows nothing of cobra, viper or output.
package provider

import (
	"context"
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Provider is a configured connection to one sandbox service. It is made
// of small interfaces, one a capability, as io.ReadWriter is made of
// io.Reader and io.Writer: what needs one part can ask for that part
// alone. A test's fake embeds Provider and writes only the methods its
// test calls, so that a method added here costs no fake an edit.
// DataPlane, which not every provider has, stays apart.
type Provider interface {
	Lifecycle
	Timeouts
	Pauser
	Ports
}

// Lifecycle makes, finds and ends sandboxes (SandboxLifecycle).
type Lifecycle interface {
	Create(ctx context.Context, req CreateRequest) (*Sandbox, error)
	// Connect makes sure the sandbox runs (resuming it if paused) and extends
	// its deadline to at least timeout.
	Connect(ctx context.Context, id string, timeout time.Duration) (*ConnectResult, error)
	Get(ctx context.Context, id string) (*Sandbox, error)
	List(ctx context.Context, opts ListOptions) ([]Sandbox, error)
	Kill(ctx context.Context, id string) error
}

// Timeouts moves a sandbox's deadline (SandboxTimeout).
type Timeouts interface {
	SetTimeout(ctx context.Context, id string, timeout time.Duration) error
}

// Pauser pauses sandboxes and resumes them (SandboxPause).
type Pauser interface {
	Pause(ctx context.Context, id string) error
	// Resume starts a paused sandbox; timeout 0 leaves the server's default.
	Resume(ctx context.Context, id string, timeout time.Duration) error
}

// Ports says where a sandbox's ports are (PortsURL).
type Ports interface {
	// PortURL is the URL of a port of the sandbox, computed without a request.
	PortURL(id string, port int) (string, error)
}

// CreateRequest is what `abx create` asks for.
type CreateRequest struct {
	Template   string
	Timeout    time.Duration // 0: the server's default
	Metadata   map[string]string
	Env        map[string]string
	AutoPause  bool
	NoInternet bool
	// Network, when set, is the egress rules the sandbox starts with: a
	// provider without NetworkEgress is not asked.
	Network *Network
	// Name or GenerateName (a prefix the server completes) names a
	// clone, a sandbox made from a snapshot (SandboxSnapshot).
	Name, GenerateName string
}

// Network is a sandbox's egress rules: where it may not connect out
// (DenyOut: CIDRs or IPs), and what is allowed despite that (AllowOut:
// CIDRs, IPs or domain names). Both empty: no rules.
type Network struct {
	AllowOut []string `json:"allowOut,omitempty"`
	DenyOut  []string `json:"denyOut,omitempty"`
}

// Egress is implemented by providers that apply egress rules to a
// sandbox (NetworkEgress): SetNetwork replaces its rules, and empty lists
// clear them.
type Egress interface {
	SetNetwork(ctx context.Context, id string, rules Network) error
}

var _ = optionalCapability(NetworkEgress, func(impl any) bool { _, ok := impl.(Egress); return ok })

// Snapshots takes snapshots of sandboxes, lists and deletes them
// (SandboxSnapshot). A sandbox is made from one by Create, the snapshot's
// ID its template (a clone).
type Snapshots interface {
	Snapshot(ctx context.Context, id string, opts SnapshotOptions) (*Snapshot, error)
	Snapshots(ctx context.Context, opts SnapshotListOptions) ([]Snapshot, error)
	// DeleteSnapshot deletes a snapshot; one that is not there is no
	// error (the server's answer is the same).
	DeleteSnapshot(ctx context.Context, snapshotID string) error
}

var _ = optionalCapability(SandboxSnapshot, func(impl any) bool { _, ok := impl.(Snapshots); return ok })

// SnapshotOptions are a snapshot's: each zero value leaves the server's
// default.
type SnapshotOptions struct {
	// KeepRunning says whether the sandbox runs on once the snapshot is
	// taken (nil: the server's default, it does).
	KeepRunning *bool
	// TTL is how long the snapshot is kept (0: until it is deleted).
	TTL time.Duration
	// Contents are what the snapshot holds: "filesystem", "memory" (none:
	// what the sandbox keeps).
	Contents []string
	// Wait bounds how long the server waits for the snapshot (0: its
	// default, 60 s).
	Wait time.Duration
}

// Snapshot is a snapshot of a sandbox: a template a sandbox can be made
// from (a clone).
type Snapshot struct {
	SnapshotID string `json:"snapshotID"`
	// SandboxID is the sandbox it was taken of, where the answer tells
	// it (taking one does; a listing does not).
	SandboxID string   `json:"sandboxID,omitempty"`
	Names     []string `json:"names"`
}

// SnapshotListOptions filters a listing of snapshots.
type SnapshotListOptions struct {
	SandboxID string // "": every sandbox's
	Limit     int    // 0: no limit
}

// ListOptions filters `abx list`.
type ListOptions struct {
	States   []string          // empty: every state
	Metadata map[string]string // all must match
	Limit    int               // 0: no limit
}

// Sandbox is a sandbox as abx shows it. The JSON names follow the E2B API;
// secrets (the envd access token, the traffic token) are not part of it.
type Sandbox struct {
	SandboxID   string            `json:"sandboxID"`
	TemplateID  string            `json:"templateID"`
	Alias       string            `json:"alias,omitempty"`
	ClientID    string            `json:"clientID,omitempty"`
	State       string            `json:"state"`
	StartedAt   time.Time         `json:"startedAt"`
	EndAt       time.Time         `json:"endAt"`
	CPUCount    int               `json:"cpuCount"`
	MemoryMB    int               `json:"memoryMB"`
	DiskSizeMB  int               `json:"diskSizeMB,omitempty"`
	EnvdVersion string            `json:"envdVersion,omitempty"`
	Domain      string            `json:"domain,omitempty"`
	Metadata    map[string]string `json:"metadata"`
	// Network is the sandbox's egress rules, when it has some and the
	// read tells them (a describe does, a listing does not).
	Network *Network `json:"network,omitempty"`
}

// ConnectResult says what connecting did.
type ConnectResult struct {
	Sandbox
	// Resumed is true when the sandbox was paused and connecting resumed it.
	Resumed bool `json:"resumed"`
}

// Endpoint is how to reach one port of a sandbox's data plane: a base URL
// and the headers every request to it carries (routing and access tokens,
// never the API key).
type Endpoint struct {
	SandboxID   string
	Port        int
	URL         string
	Header      http.Header
	EnvdVersion string
	// State is the sandbox's state as the read that made the endpoint saw
	// it ("running", "paused", or one the service adds).
	State string
	// Metadata is the sandbox's metadata as that read saw it.
	Metadata map[string]string
	// RequestTimeout is the deadline of each unary call to a server in the
	// sandbox (--request-timeout); streams and transfers have none.
	RequestTimeout time.Duration
	// IdleTimeout bounds how long a stream or a transfer may pass no byte
	// either way (--idle-timeout); 0 for no bound.
	IdleTimeout time.Duration
	// Privileged is true for a port that runs what it is asked in the
	// sandbox, as any user: envd's and the code interpreter's. Their
	// requests carry the sandbox's envd token, so a door never serves
	// such a port to a client that shows no credential of its own
	// (docs/security.md).
	Privileged bool
	// Renewing, when set, is a credential whose value changes in the
	// endpoint's life: a traffic token that expires. Header never holds
	// it; each request gets its value as it starts (Transport).
	Renewing *RenewingHeader
}

// RenewingHeader is a header whose value is asked for each request.
type RenewingHeader struct {
	Name string
	// Value returns the value to send now, or an error that says why none
	// can be sent (a token that expired and could not be renewed).
	Value func(ctx context.Context) (string, error)
}

// Transport is rt with the endpoint's renewing credential set on each
// request at its start, so that a stream attached again, or the next call
// of a long session, carries a valid one. A request that can get none is
// not sent: its error is Value's.
func (ep *Endpoint) Transport(rt http.RoundTripper) http.RoundTripper {
	if ep.Renewing == nil {
		return rt
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	return renewing{next: rt, h: ep.Renewing}
}

type renewing struct {
	next http.RoundTripper
	h    *RenewingHeader
}

func (r renewing) RoundTrip(req *http.Request) (*http.Response, error) {
	v, err := r.h.Value(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Header.Set(r.h.Name, v)
	return r.next.RoundTrip(out)
}

// StatePaused is the state of a paused sandbox: its envd, its code
// interpreter and its ports answer nothing until it is resumed.
const StatePaused = "paused"

// PausedError is the error of a call to the data plane of a paused
// sandbox, refused before anything is sent to it: the gateway would only
// answer 502. A door adds the hint that names its own way to resume.
func PausedError(id string) *abxerr.Error {
	return abxerr.New(abxerr.Paused, "sandbox %s is paused: nothing inside it answers until it is resumed", id).
		Suggest(abxerr.StepResume, id)
}

// DataPlane is implemented by providers whose sandboxes run envd and other
// servers reachable through a gateway.
type DataPlane interface {
	// Endpoint reads the sandbox (without side effects) and returns how to
	// reach port on it; port 0 means envd's port.
	Endpoint(ctx context.Context, id string, port int) (*Endpoint, error)
}
