//go:build linux

package jail

import (
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// A box's init is a copy of this binary, and the larger part of a box's
// cold start is that copy's: its exec, and its runtime's start before it
// reads a spec (docs/performance.md). An init needs nothing of its box to
// get that far but the namespaces it is made in and its cgroup; so jail
// keeps inits of each kind started ahead of need, spares, waiting on
// their spec pipe (boxinit.FDSpec). StartBox hands a spare its spec and
// starts the next spare in the background: a sandbox made after another
// finds its init already running. A spare holds nothing of a sandbox's,
// and ends with this process (its spec pipe and lifeline close).

// spareCount is how many spares of a kind wait: two, for sandboxes made
// two at a time (a client that makes one while the last boots).
const spareCount = 2

// refillAfter is how long after a box took an init the next spare starts:
// at once, its exec and its runtime's start take the cores the new box
// and its first command need (on 2 cores, as much as it saves them:
// docs/performance.md); a little later they are free.
const refillAfter = 100 * time.Millisecond

// initKind is what an init is made with: a network of its own, a cgroup.
type initKind struct {
	ownNetwork bool
	cgroup     bool
}

// initProc is an init started, before and after it has its spec.
type initProc struct {
	cmd    *exec.Cmd
	spec   *os.File // the spec pipe's write end, until the spec is sent
	life   *os.File // the lifeline: the init ends when it is closed
	ready  *os.File // the init writes a byte here once it serves
	cg     *cgroup  // nil where no cgroup can be made
	stderr *limitedBuffer
	done   chan struct{} // closed when the init has ended
	// parentID, rootID and idmap are what the init was made with
	// (BoxSpec.ParentID, RootID, IDMap).
	parentID, rootID int
	idmap            bool
}

// launch starts an init of kind, which then waits for its spec.
func launch(kind initKind) (*initProc, error) {
	p := &initProc{stderr: &limitedBuffer{max: 4 << 10}, done: make(chan struct{})}
	var files []*os.File // the child's ends, closed once it started
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	files, p.life = append(files, lifeR), lifeW
	readyR, readyW, err := os.Pipe()
	if err != nil {
		p.closeOurs()
		return nil, err
	}
	files, p.ready = append(files, readyW), readyR
	specR, specW, err := os.Pipe()
	if err != nil {
		p.closeOurs()
		return nil, err
	}
	files, p.spec = append(files, specR), specW
	// FDLifeline, FDReady, FDIDMap (where there is one), FDSpec.
	extra := []*os.File{lifeR, readyW, nil, specR}
	cmd := &exec.Cmd{Path: selfExe, Args: []string{InitName}, Stderr: p.stderr}
	if p.parentID, p.rootID, err = isolate(cmd, kind.ownNetwork); err != nil {
		p.closeOurs()
		return nil, err
	}
	if os.Geteuid() == 0 {
		// This machine's directories, with layers of the box's own
		// over them, writable to its root.
		if ns, err := rootMap(); err == nil {
			extra[boxinit.FDIDMap-3], p.idmap = ns, true
		}
	}
	cmd.ExtraFiles = extra
	if kind.cgroup {
		if cg, err := newCgroup(); err == nil {
			p.cg = cg
			cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
		}
	}
	cmd.Env = []string{boxinit.SpecEnv + "=1"}
	if spawn.InheritsSignals() {
		// Signals this process was started with ignored or blocked would
		// pass to the init and on to every command: the trampoline
		// starts the init without them.
		cmd.Path, cmd.Args, cmd.Env = boxinit.ExecArgs(selfExe, cmd.Args, cmd.Env)
	}
	if err := cmd.Start(); err != nil {
		p.closeOurs()
		if p.cg != nil {
			p.cg.remove()
		}
		return nil, err
	}
	p.cmd = cmd
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// hand gives the init its box's spec, completed with what the init was
// made with, and returns that spec. Through a pipe, not argv nor the
// environment: the spec names paths, which argv would show every user of
// the machine, and the init was started before its box was asked for.
func (p *initProc) hand(spec BoxSpec) (BoxSpec, error) {
	spec.ParentID, spec.RootID, spec.IDMap = p.parentID, p.rootID, p.idmap
	js, err := json.Marshal(spec)
	if err == nil {
		_, err = p.spec.Write(js)
	}
	if cerr := p.spec.Close(); err == nil {
		err = cerr
	}
	p.spec = nil
	return spec, err
}

// closeOurs closes this process's ends of the init's pipes.
func (p *initProc) closeOurs() {
	for _, f := range []*os.File{p.spec, p.life, p.ready} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// alive tells whether the init has not ended.
func (p *initProc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// discard ends an init that got no box.
func (p *initProc) discard() {
	p.closeOurs() // an init without its spec ends at its pipe's end
	_ = p.cmd.Process.Kill()
	<-p.done
	if p.cg != nil {
		p.cg.remove()
	}
}

// spares are the inits waiting for a box, spareCount of each kind at
// most, and the one being started to wait.
var spares struct {
	mu     sync.Mutex
	idle   map[initKind][]*initProc
	making map[initKind]chan struct{} // closed when the start is over
	// gen counts DropSpares: a spare started before the last one is
	// not kept.
	gen int
}

// takeInit gives an init of kind: the spare where one is waiting or being
// started (which is sooner ready than one started now), else one started
// now. Either way, a spare of kind is started after it, in the background,
// refillAfter later.
func takeInit(kind initKind) (*initProc, error) {
	spares.mu.Lock()
	making := spares.making[kind]
	if len(spares.idle[kind]) > 0 {
		making = nil
	}
	spares.mu.Unlock()
	if making != nil {
		select {
		case <-making:
		case <-time.After(startWait):
		}
	}
	spares.mu.Lock()
	var p *initProc
	if idle := spares.idle[kind]; len(idle) > 0 {
		p, spares.idle[kind] = idle[0], idle[1:]
	}
	gen := spares.gen
	spares.mu.Unlock()
	defer time.AfterFunc(refillAfter, func() { refill(kind, gen) })
	if p != nil && p.alive() {
		return p, nil
	}
	if p != nil {
		p.discard()
	}
	return launch(kind)
}

// refill starts spares of kind in the background, one after another,
// until spareCount wait; none after a DropSpares since gen.
func refill(kind initKind, gen int) {
	spares.mu.Lock()
	defer spares.mu.Unlock()
	if gen != spares.gen || len(spares.idle[kind]) >= spareCount || spares.making[kind] != nil {
		return
	}
	if spares.making == nil {
		spares.making, spares.idle = map[initKind]chan struct{}{}, map[initKind][]*initProc{}
	}
	done := make(chan struct{})
	spares.making[kind] = done
	go func() {
		defer close(done)
		p, err := launch(kind)
		spares.mu.Lock()
		delete(spares.making, kind)
		keep := err == nil && gen == spares.gen
		if keep {
			spares.idle[kind] = append(spares.idle[kind], p)
		}
		spares.mu.Unlock()
		if err == nil && !keep {
			p.discard()
		}
		if keep {
			refill(kind, gen)
		}
	}()
}

// DropSpares ends the inits waiting for a box: an emulator that shuts
// down leaves no process behind, even for as long as this one lives.
func DropSpares() {
	spares.mu.Lock()
	idle := spares.idle
	spares.idle = map[initKind][]*initProc{}
	spares.gen++
	spares.mu.Unlock()
	for _, ps := range idle {
		for _, p := range ps {
			p.discard()
		}
	}
}
