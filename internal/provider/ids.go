package provider

import (
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
)

// MaxIDLength bounds an identifier: Kubernetes names stay under 253 bytes.
const MaxIDLength = 253

// CheckID refuses an identifier (what: "sandbox ID", "context ID",
// "--user") that no server issues, before anything is sent: empty, longer
// than a Kubernetes name, "." or "..", or holding anything but ASCII
// letters, digits, '.', '_' and '-'. sandbox-manager's IDs are
// namespace--name, Kubernetes names, and the code interpreter's contexts
// are UUIDs; what else would be put into a URL or a header could change
// where it goes.
func CheckID(what, id string) *abxerr.Error {
	bad := id == "" || len(id) > MaxIDLength || id == "." || id == ".." ||
		strings.IndexFunc(id, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		}) >= 0
	if bad {
		return abxerr.New(abxerr.InvalidInput, "invalid %s %q", what, id)
	}
	return nil
}

// CheckSnapshotID is the rule of a snapshot's ID, which goes into a
// path (DELETE /templates/{id}) and a create's template: a checkpoint's
// ID, a Kubernetes name.
func CheckSnapshotID(id string) *abxerr.Error {
	return CheckID("snapshot ID", id)
}

// CheckSandboxID is the one rule of a sandbox ID, shared by every door
// (the CLI's arguments, the MCP tools' sandbox_id, the engine's routes)
// and by the provider's client itself, which refuses such an ID before
// any request: ".." as an ID would make DELETE /sandboxes/{id} a request
// for the API's root (docs/protocol.md#sandbox-ids).
func CheckSandboxID(id string) *abxerr.Error {
	return CheckID("sandbox ID", id)
}
