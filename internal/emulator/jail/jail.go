// Package jail runs an emulated sandbox's processes in a view of this
// machine that looks like a sandbox: the sandbox's own directories at
// /home/user, /tmp, /var/tmp and /root, everything else read-only, and the
// user `user` (uid 1000) unless root is asked for.
//
// It uses the re-exec pattern: Command starts this very binary, under the
// name InitName, in a new user and mount namespace; the copy's Init sets
// the mounts up and then becomes (or, for `user`, starts and waits on) the
// command. Every main and TestMain whose process may start sandbox
// processes calls Init first. docs/emulator.md has the whole model.
package jail

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/abx-dev/abx/internal/abxerr"
)

// InitName is argv[0] of the copy that sets a jail up; specEnv carries
// its Spec.
const (
	InitName = "abx-sandbox-init"
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

// Spec is one command to run in a sandbox's view.
type Spec struct {
	Binds []Bind `json:"binds"`
	// Hide covers these directories of this machine with an empty one,
	// so that the emulator's state (other sandboxes among it) cannot be
	// read from inside.
	Hide []string `json:"hide,omitempty"`
	// Root runs the command as uid 0 inside; otherwise it runs as user.
	Root bool `json:"root,omitempty"`
	// Dir is the working directory, a path inside the view.
	Dir string `json:"dir"`
	// Args is the command line; Args[0] is looked up on the PATH of the
	// environment given to Command, inside the view.
	Args []string `json:"args"`
	// ExtraFiles is how many descriptors after stderr (3, 4, ...) the
	// command inherits, as exec.Cmd.ExtraFiles gives them to the init.
	ExtraFiles int `json:"extraFiles,omitempty"`
	// Probe sets the view up and exits 0 without running anything.
	Probe bool `json:"probe,omitempty"`
	// Env is the command's environment. The init itself starts with no
	// other variable than its spec: nothing a client sets (LD_PRELOAD,
	// GODEBUG) reaches it.
	Env []string `json:"env,omitempty"`

	// ParentID is the uid and gid, in the init's user namespace, that the
	// command's user maps to (set by Command).
	ParentID int `json:"parentID"`
}

// ErrUnsupported is returned where this system cannot give processes a
// view of their own.
var ErrUnsupported = errors.New("processes cannot be isolated on this system")

// Command returns the command that runs spec with environment env, the
// command inheriting extra as descriptors 3, 4, .... The caller sets its
// standard streams and starts it. Its process is the init, in a process
// group of its own, so that a signal to the group reaches the command too.
func Command(spec Spec, env []string, extra []*os.File) (*exec.Cmd, error) {
	if len(spec.Args) == 0 && !spec.Probe {
		return nil, errors.New("jail: no command")
	}
	spec.ExtraFiles, spec.Env = len(extra), env
	cmd := &exec.Cmd{Path: selfExe, Args: []string{InitName}, ExtraFiles: extra}
	parentID, err := isolate(cmd)
	if err != nil {
		return nil, err
	}
	spec.ParentID = parentID
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	// In the environment, not argv: the spec names paths and holds the
	// command's variables, which argv would show every user of the machine.
	cmd.Env = []string{specEnv + "=" + string(b)}
	return cmd, nil
}

// Init turns this process into a jail's init when it was started as one,
// and never returns then. Otherwise it returns at once.
func Init() {
	raw, ok := os.LookupEnv(specEnv)
	if len(os.Args) != 1 || os.Args[0] != InitName || !ok {
		return
	}
	var spec Spec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, InitName+": bad spec:", err)
		os.Exit(exitSetup)
	}
	os.Exit(run(spec))
}

// Exit statuses of the init itself, as a shell's: a command that could not
// be set up is 126 and one not found is 127.
const (
	exitSetup    = abxerr.ExitCannotRun
	exitNotFound = abxerr.ExitCommandNotFound
)
