// Package boxinit is a box's init (package jail): PID 1 of the box's PID
// namespace, which builds the box's view once and then forks every
// command the emulator hands it over its socket. It runs in a copy of
// abx's own binary, started under the name Name; this package's init
// function turns that copy into the init before the rest of abx is
// initialised, so that the init holds none of what abx's other packages
// build when they start (a table library's caches, a jq compiler's
// builtins), and a hundred boxes cost little memory. For that, it imports
// only what the Go runtime sets up first: no net, no os/signal, no
// os/exec, no path/filepath (a test holds the list). docs/emulator.md has
// the whole model.
//
// The same hook serves ExecName: a trampoline that starts a command with
// default signal dispositions and an empty signal mask, whatever the
// emulator inherited (package spawn uses it where children would inherit
// ignored or blocked signals); and sudo, which a box's /usr/bin/sudo runs.
package boxinit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
)

// Name is argv[0] of the copy that becomes a box's init, ExecName of the
// trampoline; SpecEnv, set to "1", marks the init's start (its BoxSpec
// comes on FDSpec).
const (
	Name     = "abx-sandbox-init"
	ExecName = "abx-sandbox-exec"
	SpecEnv  = "ABX_SANDBOX_INIT"
	// HoldName is argv[0] of a copy that holds a user namespace open
	// for the emulator until its stdin closes (FDIDMap's).
	HoldName = "abx-sandbox-userns"
)

// Descriptors the init is started with: it ends when the lifeline's other
// end closes, and writes one byte to ready once it serves.
const (
	FDLifeline = 3
	FDReady    = 4
	// FDIDMap is a user namespace that maps this machine's root to the
	// sandbox's (BoxSpec.IDMap).
	FDIDMap = 5
	// FDSpec is a pipe the init reads its BoxSpec from, as JSON, to its
	// end: an init may be started ahead of its box (package jail's
	// spare), and waits there. Nothing read, it ends quietly (the
	// emulator ended, or let it go, before it had a box).
	FDSpec = 6
)

// The init's and the trampoline's own statuses, as a shell's (and abx's,
// abxerr.ExitCannotRun and ExitCommandNotFound): a command that could not
// be set up or run, and one that is not there.
const (
	ExitSetup    = 126
	ExitNotFound = 127
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
	// Top is the box's root directory, a directory of the sandbox's own
	// on this machine: this machine's top-level directories are bound in
	// it read-only, and what the sandbox makes beside them (/workspace)
	// is kept there. StartBox gives a box without one a scratch
	// directory.
	Top string `json:"top"`
	// Layers holds, on this machine, what the sandbox adds over this
	// machine's directories that its box lays over them (its /usr, which
	// holds its sudo). StartBox gives a box without one a scratch
	// directory.
	Layers string `json:"layers"`
	// Hide covers these directories of this machine with an empty one,
	// so that the emulator's state (other sandboxes among it) cannot be
	// read from inside.
	Hide []string `json:"hide,omitempty"`
	// Probe sets the view up and exits 0 without serving.
	Probe bool `json:"probe,omitempty"`
	// NoCgroup does without a cgroup even where one could be made: the
	// init stops each process to freeze the box (the fallback's tests).
	NoCgroup bool `json:"-"`
	// OwnNetwork gives the box a network namespace of its own, with its
	// loopback and nothing else: its ports are its own, and nothing of
	// this machine's network (its loopback's servers among it) is in
	// reach. The emulator reaches the box's ports through the init
	// (OpDial).
	OwnNetwork bool `json:"ownNetwork,omitempty"`
	// IDMap lays a layer of the box's own over each of this machine's
	// top-level directories, writable to the sandbox's root: a root
	// emulator's box, which has FDIDMap.
	IDMap bool `json:"idmap,omitempty"`
	// Carry makes the box's connections out of its network the
	// emulator's to make (OwnNetwork with a way out): the init traps
	// every connect of the box and hands the trap over (OpTrap), with a
	// socket at port 53 of each of Resolvers, this machine's resolvers,
	// put on the box's loopback for the emulator to relay (StartBox
	// reads this machine's resolv.conf for a spec that names none).
	// Each resolver is an address of 4 or 16 bytes.
	Carry     bool     `json:"carry,omitempty"`
	Resolvers [][]byte `json:"resolvers,omitempty"`
	// Lowers are the directories, on this machine, of the snapshots a
	// clone stands on, the nearest first, each laid out as a sandbox's
	// directory: the box lays the sandbox's own directories (Binds that
	// are directories of Top's parent) over theirs, so that the clone
	// starts with the snapshot's files and writes its own. (Its Top is
	// a copy: an overlay takes no lower inside another lower, and this
	// machine's root, under a root emulator's layer, holds them all.)
	Lowers []string `json:"lowers,omitempty"`

	// Socket is where the init listens, a path outside the view (set by
	// StartBox); ParentID is the uid and gid, in the init's user
	// namespace, that a command's user maps to, and RootID those its root
	// maps to, the same where the init has one id to give (set by
	// StartBox).
	Socket   string `json:"socket"`
	ParentID int    `json:"parentID"`
	RootID   int    `json:"rootID"`
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
	// Env is the command's environment. The init passes on nothing else:
	// nothing a client sets (LD_PRELOAD, GODEBUG) reaches it.
	Env []string `json:"env,omitempty"`
	// Tty starts the command on a terminal: its stdin (a pty's slave end)
	// becomes the controlling terminal of the new session the command
	// leads, so that ^C written to the master interrupts its foreground
	// job and a resize of the master reaches it as SIGWINCH.
	Tty bool `json:"tty,omitempty"`
	// EndGroup kills the command's process group when the command ends,
	// before the init reaps it (a kernel's: what it started goes with it).
	EndGroup bool `json:"endGroup,omitempty"`
}

// Uid and Gid of the sandbox user, as on E2B's templates.
const (
	UserUID = 1000
	UserGID = 1000
)

func init() {
	if len(os.Args) == 0 {
		return
	}
	switch os.Args[0] {
	case Name:
		if os.Getenv(SpecEnv) != "1" || len(os.Args) != 1 {
			return
		}
		f := os.NewFile(FDSpec, "spec")
		raw, err := io.ReadAll(io.LimitReader(f, maxSpec))
		_ = f.Close()
		if err != nil || len(raw) == 0 {
			os.Exit(0)
		}
		var spec BoxSpec
		if err := json.Unmarshal(raw, &spec); err != nil {
			fmt.Fprintln(os.Stderr, Name+": bad spec:", err)
			os.Exit(ExitSetup)
		}
		os.Exit(runBox(spec))
	case ExecName:
		if os.Getenv(execEnv) != "1" || len(os.Args) < 3 {
			return
		}
		os.Exit(runExec(os.Args[1], os.Args[2:]))
	case HoldName:
		if len(os.Args) != 1 {
			return
		}
		var one [1]byte
		_, _ = os.Stdin.Read(one[:])
		os.Exit(0)
	}
	if path.Base(os.Args[0]) == "sudo" {
		// A box's /usr/bin/sudo is this binary (SudoSocket).
		os.Exit(runSudo(os.Args[1:]))
	}
}

// maxSpec bounds a BoxSpec: its paths and binds, never near it.
const maxSpec = 1 << 20

// execEnv marks the trampoline's start; it takes it out of the
// environment it passes on.
const execEnv = "ABX_SANDBOX_EXEC"

// ExecArgs are the path, argv and environment that start path with argv
// and env through the trampoline, in this binary.
func ExecArgs(path string, argv, env []string) (string, []string, []string) {
	return "/proc/self/exe", append([]string{ExecName, path}, argv...), append([]string{execEnv + "=1"}, env...)
}
