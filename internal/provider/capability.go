package provider

import "github.com/abx-dev/abx/internal/abxerr"

// Capability names one thing a provider can do. Every command declares the
// capability it needs; the check runs before any I/O.
type Capability string

// The capabilities of the abx family. A provider declares the ones it has;
// all others are refused with E8004.
const (
	SandboxLifecycle Capability = "sandbox.lifecycle"
	SandboxTimeout   Capability = "sandbox.timeout"
	SandboxPause     Capability = "sandbox.pause"
	SandboxSnapshot  Capability = "sandbox.snapshot"
	ExecRun          Capability = "exec.run"
	ExecStream       Capability = "exec.stream"
	ProcessManage    Capability = "process.manage"
	FilesRW          Capability = "files.rw"
	CodeInterpret    Capability = "code.interpret"
	PortsURL         Capability = "ports.url"
	PTY              Capability = "pty"
	FilesWatch       Capability = "files.watch"
	SandboxMetrics   Capability = "sandbox.metrics"
	FilesTransfer    Capability = "files.transfer"
	TemplatesRead    Capability = "templates.read"
	TemplatesBuild   Capability = "templates.build"
	PortsDomain      Capability = "ports.domain"
	StorageMount     Capability = "storage.mount"
	NetworkVPC       Capability = "network.vpc"
	NetworkEgress    Capability = "network.egress"
	Sessions         Capability = "sessions"
)

// CapabilityInfo describes a capability for `abx capabilities`.
type CapabilityInfo struct {
	Name        Capability
	Description string
}

// AllCapabilities is every capability of the abx family, in display order.
var AllCapabilities = []CapabilityInfo{
	{SandboxLifecycle, "create, connect, list, inspect and kill sandboxes"},
	{SandboxTimeout, "change a sandbox's time to live"},
	{SandboxPause, "pause and resume sandboxes"},
	{SandboxSnapshot, "snapshot sandboxes, and make sandboxes from snapshots (clones, forks)"},
	{ExecRun, "run a command and wait for its exit code"},
	{ExecStream, "stream a command's output as it runs"},
	{ProcessManage, "list, signal and feed running processes"},
	{FilesRW, "read, write, list and move files"},
	{CodeInterpret, "run code in a Jupyter-backed interpreter"},
	{PortsURL, "compute the public URL of a sandbox port"},
	{PTY, "interactive terminal sessions"},
	{FilesWatch, "watch a directory for changes"},
	{SandboxMetrics, "read a sandbox's CPU, memory and disk use"},
	{FilesTransfer, "presigned upload and download URLs"},
	{TemplatesRead, "list and inspect templates"},
	{TemplatesBuild, "build templates"},
	{PortsDomain, "custom domains for sandbox ports"},
	{StorageMount, "mount external storage"},
	{NetworkVPC, "attach sandboxes to a private network"},
	{NetworkEgress, "limit where a sandbox may connect out (egress rules)"},
	{Sessions, "long-lived sessions"},
}

// optional are the capabilities a provider has by implementing an
// optional interface of this package (one not every provider has, as
// DataPlane): each is registered beside its interface (optionalCapability),
// and a provider's descriptor lists those its client implements
// (Optional), so that such a capability is never declared without its
// method nor its method written without the capability declared.
var optional = map[Capability]func(impl any) bool{}

// optionalCapability registers c as had by whatever has reports; it is
// called as a package-level variable's value, beside the interface.
func optionalCapability(c Capability, has func(impl any) bool) bool {
	optional[c] = has
	return true
}

// Optional lists, in display order, the optional capabilities impl (a
// provider's client, a typed nil will do) has by the interfaces it
// implements.
func Optional(impl any) []Capability {
	var out []Capability
	for _, c := range AllCapabilities {
		if has := optional[c.Name]; has != nil && has(impl) {
			out = append(out, c.Name)
		}
	}
	return out
}

// Check refuses a capability the provider does not declare, with E8004.
func (d *Descriptor) Check(c Capability) error {
	if d.Supports(c) {
		return nil
	}
	return abxerr.NewUnsupported(d.Name, string(c))
}

// Supports reports whether the provider declares c.
func (d *Descriptor) Supports(c Capability) bool {
	for _, have := range d.Capabilities {
		if have == c {
			return true
		}
	}
	return false
}

// CapabilityStatus is one capability of the family and whether a provider
// supports it, as `abx capabilities` and `abx provider info` show it.
type CapabilityStatus struct {
	Name        Capability `json:"name"`
	Supported   bool       `json:"supported"`
	Description string     `json:"description"`
}

// Manifest is every capability of the family, in display order, with
// whether d supports it.
func (d *Descriptor) Manifest() []CapabilityStatus {
	out := make([]CapabilityStatus, 0, len(AllCapabilities))
	for _, c := range AllCapabilities {
		out = append(out, CapabilityStatus{Name: c.Name, Supported: d.Supports(c.Name), Description: c.Description})
	}
	return out
}
