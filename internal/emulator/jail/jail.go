// Package jail runs an emulated sandbox's processes as a real sandbox
// runs them: in a view of this machine that looks like a sandbox (the
// sandbox's own directories at /home/user, /tmp, /var/tmp and /root,
// everything else read-only, the user `user`, uid 1000, unless root is
// asked for), and in a box of their own: a PID namespace whose init starts
// every command of the sandbox, so that its processes see only each
// other, pause together and end together, however they detached.
//
// It uses the re-exec pattern. StartBox starts this very binary, under
// the name InitName, in new mount and PID namespaces (and a user namespace
// unless abx runs as root); that copy builds the view once and becomes
// the box's init, PID 1 inside. Box.Command starts it again, under the
// name RunName, as a command's relay: a small process outside the box,
// which hands the command and its standard streams to the init and then
// stands for the command on this machine, passing signals in and its exit
// status out, so that callers keep the exec.Cmd they know. Every main and
// TestMain whose process may start sandbox processes calls Init first.
// docs/emulator.md has the whole model.
package jail

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/abx-dev/abx/internal/abxerr"
)

// InitName is argv[0] of the copy that becomes a box's init, RunName of a
// command's relay; specEnv carries what each is to do.
const (
	InitName = "abx-sandbox-init"
	RunName  = "abx-sandbox-run"
	specEnv  = "ABX_SANDBOX_INIT_SPEC"
)

// Uid and Gid of the sandbox user, as on E2B's templates.
const (
	UserUID = 1000
	UserGID = 1000
)

// Bind puts a directory (or file) of this machine at Target inside the
// view. Binds are writable unless ReadOnly.
type Bind struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// BoxSpec is a box: its view, and where its init listens.
type BoxSpec struct {
	Binds []Bind `json:"binds"`
	// Hide covers these directories of this machine with an empty one,
	// so that the emulator's state (other sandboxes among it) cannot be
	// read from inside.
	Hide []string `json:"hide,omitempty"`
	// Probe sets the view up and exits 0 without serving.
	Probe bool `json:"probe,omitempty"`
	// NoCgroup does without a cgroup even where one could be made: the
	// init stops each process to freeze the box (the fallback's tests).
	NoCgroup bool `json:"-"`

	// Socket is where the init listens, a path outside the view (set by
	// StartBox); ParentID is the uid and gid, in the init's user
	// namespace, that a command's user maps to (set by StartBox).
	Socket   string `json:"socket"`
	ParentID int    `json:"parentID"`
}

// Spec is one command to run in a box.
type Spec struct {
	// Root runs the command as uid 0 inside; otherwise it runs as user.
	Root bool `json:"root,omitempty"`
	// Dir is the working directory, a path inside the view.
	Dir string `json:"dir"`
	// Args is the command line; Args[0] is looked up on the PATH of Env,
	// inside the view.
	Args []string `json:"args"`
	// Env is the command's environment. Neither the init nor the relay
	// passes on anything else: nothing a client sets (LD_PRELOAD, GODEBUG)
	// reaches them.
	Env []string `json:"env,omitempty"`
	// ExtraFiles is how many descriptors after stderr (3, 4, ...) the
	// command inherits, as exec.Cmd.ExtraFiles gives them to the relay.
	ExtraFiles int `json:"extraFiles,omitempty"`
	// Tty starts the command on a terminal: its stdin (as the relay gets
	// it: a pty's slave end, from Box.OpenPTY) becomes the controlling
	// terminal of the new session the command leads, so that ^C written
	// to the master interrupts its foreground job and a resize of the
	// master reaches it as SIGWINCH.
	Tty bool `json:"tty,omitempty"`

	// Socket is the box's (set by Box.Command); RelayPID is the relay's
	// pid on this machine, by which the emulator asks the init for the
	// command's pid in the box.
	Socket   string `json:"socket,omitempty"`
	RelayPID int    `json:"relayPID,omitempty"`
}

// ErrUnsupported is returned where this system cannot give processes a
// view of their own.
var ErrUnsupported = errors.New("processes cannot be isolated on this system")

// Init turns this process into a box's init or a command's relay when it
// was started as one, and never returns then. Otherwise it returns at
// once.
func Init() {
	raw, ok := os.LookupEnv(specEnv)
	if len(os.Args) != 1 || !ok {
		return
	}
	switch os.Args[0] {
	case InitName:
		var spec BoxSpec
		if err := json.Unmarshal([]byte(raw), &spec); err != nil {
			fmt.Fprintln(os.Stderr, InitName+": bad spec:", err)
			os.Exit(exitSetup)
		}
		os.Exit(runBox(spec))
	case RunName:
		var spec Spec
		if err := json.Unmarshal([]byte(raw), &spec); err != nil {
			fmt.Fprintln(os.Stderr, RunName+": bad spec:", err)
			os.Exit(exitSetup)
		}
		os.Exit(relay(spec))
	}
}

// Exit statuses of the init itself, as a shell's: a command that could not
// be set up is 126 and one not found is 127.
const (
	exitSetup    = abxerr.ExitCannotRun
	exitNotFound = abxerr.ExitCommandNotFound
)
