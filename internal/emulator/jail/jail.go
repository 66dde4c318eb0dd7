// Package jail runs an emulated sandbox's processes as a real sandbox
// runs them: in a view of this machine that looks like a sandbox (the
// sandbox's own directories at /home/user, /tmp, /var/tmp and /root,
// everything else read-only, the user `user`, uid 1000, unless root is
// asked for), and in a box of their own: a PID namespace whose init starts
// every command of the sandbox, so that its processes see only each
// other, pause together and end together, however they detached.
//
// It uses the re-exec pattern. StartBox starts this very binary, under
// the name boxinit.Name, in new mount and PID namespaces (and a user
// namespace unless abx runs as root); that copy builds the view once and
// becomes the box's init, PID 1 inside (package boxinit, whose init
// function takes the copy over before the rest of abx starts). Box.Start
// hands the init a command and its descriptors over the init's socket;
// the init forks it and the connection stays the emulator's handle on it:
// signals go in, its pid and then its exit status come out.
// docs/emulator.md has the whole model.
package jail

import (
	"errors"
	"net/netip"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
)

// InitName is argv[0] of a box's init, as ps shows it.
const InitName = boxinit.Name

// Uid and Gid of the sandbox user, as on E2B's templates.
const (
	UserUID = boxinit.UserUID
	UserGID = boxinit.UserGID
)

// The init's own words (package boxinit) for what a box is and what a
// command is.
type (
	// Bind is a path of the host seen at another path in a box.
	Bind = boxinit.Bind
	// BoxSpec is what a box is made of.
	BoxSpec = boxinit.BoxSpec
	// Spec is one command of a box.
	Spec = boxinit.Spec
)

// ErrUnsupported is returned where this system cannot give processes a
// view of their own.
var ErrUnsupported = errors.New("processes cannot be isolated on this system")

// Egress decides each connection a carried box (BoxSpec.Carry) makes out
// of it, by its destination: nil lets it go; an error refuses it, as a
// firewall's rule would (the program sees EPERM).
type Egress func(netip.AddrPort) error
