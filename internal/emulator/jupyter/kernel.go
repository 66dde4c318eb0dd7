//go:build unix

package jupyter

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/emulator/spawn"
)

const (
	// startTimeout bounds how long a kernel may take to say it is ready.
	startTimeout = 30 * time.Second
	// grace is how long a dead kernel's pipes may stay open, held by
	// processes that escaped its group, before we close them ourselves.
	grace = time.Second
)

// The errors an execution in progress ends with when its kernel goes: the
// real server's words for a restarted kernel (Jupyter restarts one that
// died, too) and for a connection to the kernel it closed. Made on first
// use, since every abx run, not only the emulator's, would build them.
var (
	contextRestarting = sync.OnceValue(func() []byte {
		return errorLine("ContextRestarting", "Context was restarted")
	})
	connectionClosed = sync.OnceValue(func() []byte {
		return errorLine("UnexpectedEndOfExecution",
			"Connection to the execution was closed before the execution was finished")
	})
)

// event is one line of an execution's stream; last is end_of_execution.
type event struct {
	line []byte
	last bool
}

// run is one execution on a kernel.
type run struct {
	events chan event
	gone   chan struct{} // closed when nobody reads events any more
}

func (r *run) deliver(ev event) {
	select {
	case r.events <- ev:
	case <-r.gone:
	}
}

// kernel is one python3 process running driver.py, in its own process
// group so that pauses and kills reach whatever it started.
// Requests go to its stdin; events come on its fd 3 and go, in order, to
// the execution in progress. The driver captures fd 1 and 2 itself (see
// driver.py), so what reaches our stderr pipe is only what the
// interpreter said before that: why it could not start.
type kernel struct {
	cmd    *spawn.Cmd
	stdin  io.WriteCloser
	stderr tail
	ready  chan struct{}
	done   chan struct{} // closed once the process is reaped and its events read
	once   sync.Once

	mu     sync.Mutex
	run    *run
	ended  bool
	reason []byte // the error line the execution in progress ends with
}

// tail keeps the last bytes written to it.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	const keep = 2 << 10
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > keep {
		t.b = t.b[len(t.b)-keep:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// startKernel starts a kernel, made by command with its event pipe as
// descriptor 3, and waits until the driver is ready. An error of command
// is errCwd.
func startKernel(command func() (*spawn.Cmd, error)) (*kernel, error) {
	cmd, err := command()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCwd, err)
	}
	protoR, protoW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	k := &kernel{ready: make(chan struct{}), done: make(chan struct{})}
	// What the kernel started goes with it, as when Jupyter restarts one.
	cmd.ExtraFiles, cmd.Stderr, cmd.EndGroup, cmd.WaitDelay = []*os.File{protoW}, &k.stderr, true, grace
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	_ = protoW.Close()
	if err != nil {
		_ = protoR.Close()
		return nil, err
	}
	k.cmd, k.stdin = cmd, stdin
	read := make(chan struct{})
	go func() { k.readEvents(protoR); close(read) }()
	go k.wait(read, protoR)

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case <-k.ready:
		return k, nil
	case <-k.done:
		msg := "the kernel exited as it started: " + spawn.StatusString(cmd.Status)
		if s := strings.TrimSpace(k.stderr.String()); s != "" {
			msg += ": " + s
		}
		return nil, errors.New(msg)
	case <-timer.C:
		k.kill(nil)
		return nil, fmt.Errorf("the kernel was not ready within %s", startTimeout)
	}
}

// wait reaps the process, then ends the execution in progress.
func (k *kernel) wait(read <-chan struct{}, protoR *os.File) {
	// Its group is killed with it (EndGroup), then it is reaped.
	_ = k.cmd.Wait()
	// Events written before the end are still in the pipe; a process that
	// escaped the group may hold it open, though.
	select {
	case <-read:
	case <-time.After(grace):
		_ = protoR.Close()
		<-read
	}
	_ = protoR.Close()
	k.mu.Lock()
	k.ended = true
	r, reason := k.run, k.reason
	k.run = nil
	k.mu.Unlock()
	if reason == nil {
		reason = contextRestarting()
	}
	if r != nil {
		r.deliver(event{line: reason})
		r.deliver(event{line: endOfExecution, last: true})
	}
	close(k.done)
}

// readEvents reads the driver's events. A line cut short by the kernel's
// death is dropped.
func (k *kernel) readEvents(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		k.handle(line[:len(line)-1])
	}
}

func (k *kernel) handle(line []byte) {
	var ev struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	switch ev.Type {
	case "ready":
		k.once.Do(func() { close(k.ready) })
	case "stdout", "stderr":
		k.send(event{line: streamLine(ev.Type, ev.Text)})
	case "end_of_execution":
		k.send(event{line: line, last: true})
	default:
		k.send(event{line: line})
	}
}

// send hands an event to the execution in progress; the last one ends it.
func (k *kernel) send(ev event) {
	k.mu.Lock()
	r := k.run
	if ev.last {
		k.run = nil
	}
	k.mu.Unlock()
	if r != nil {
		r.deliver(ev)
	}
}

// begin sends code to the driver and returns the execution that streams
// its events.
func (k *kernel) begin(code string, env map[string]string) (*run, error) {
	req, err := json.Marshal(struct {
		Code    string            `json:"code"`
		EnvVars map[string]string `json:"env_vars,omitempty"`
	}{code, env})
	if err != nil {
		return nil, err
	}
	r := &run{events: make(chan event, 64), gone: make(chan struct{})}
	k.mu.Lock()
	if k.ended || k.run != nil {
		k.mu.Unlock()
		return nil, errors.New("kernel not available")
	}
	k.run = r
	k.mu.Unlock()
	// A kernel that died refuses the write; wait ends the run then.
	_, _ = k.stdin.Write(append(req, '\n'))
	return r, nil
}

// signal signals the kernel's process group, until the kernel is reaped.
func (k *kernel) signal(sig syscall.Signal) { k.cmd.Process.SignalGroup(sig) }

func (k *kernel) isEnded() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ended
}

// kill kills the process group and waits until the kernel is gone; the
// execution in progress ends with reason (nil: ContextRestarting).
func (k *kernel) kill(reason []byte) {
	k.mu.Lock()
	if k.reason == nil {
		k.reason = reason
	}
	k.mu.Unlock()
	k.signal(syscall.SIGKILL)
	<-k.done
}
