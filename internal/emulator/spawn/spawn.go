// Package spawn starts an emulated sandbox's processes, wherever they run:
// on this machine, or in the sandbox's box, where its init forks them
// (package jail). A Cmd is what exec.Cmd is to the emulator's envd and
// code interpreter, narrowed to what they use: its standard streams and
// extra descriptors, Start, Wait, signals to the process and its group,
// and the process's pid as its sandbox sees it. What starts the process is
// a Starter: Host, or a box's.
package spawn

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Process is a started process of a sandbox.
type Process interface {
	// Pid is the process's pid in its sandbox: in its box's PID
	// namespace, or on this machine.
	Pid() int
	// Signal sends sig to the process; os.ErrProcessDone once it has been
	// reaped, when its pid may be another's.
	Signal(sig syscall.Signal) error
	// SignalGroup sends sig to the process group the process leads (it
	// leads a session), until the process has been reaped.
	SignalGroup(sig syscall.Signal)
	// Wait waits for the process's end and reaps it.
	Wait() (syscall.WaitStatus, error)
}

// Starter starts a process with files as its descriptors: 0, 1 and 2,
// then the extra ones (3, 4, ...). The process gets copies: the caller
// closes files after. With endGroup, the process's group is killed when
// the process ends, before it is reaped, as Jupyter ends a kernel and all
// it started.
type Starter func(files []*os.File, endGroup bool) (Process, error)

// Cmd is a process to start, as exec.Cmd: the fields are set before
// Start, and Start and Wait are each called once.
type Cmd struct {
	// Stdin, Stdout and Stderr are the process's standard streams: an
	// *os.File is passed as it is, anything else through a pipe and a
	// copy; nil is the null device. Stdout and Stderr the same writer
	// share one pipe, so that the writer sees no two writes at once.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// ExtraFiles are descriptors 3, 4, ... of the process.
	ExtraFiles []*os.File
	// EndGroup kills the process's group when the process ends.
	EndGroup bool
	// WaitDelay bounds how long Wait waits, once the process has ended,
	// for the copies of Stdin, Stdout and Stderr to end (a process that
	// left the group may hold a pipe open); 0 waits until they end.
	WaitDelay time.Duration

	// Process is the started process, set by Start.
	Process Process
	// Status is how the process ended, set by Wait.
	Status syscall.WaitStatus

	start           Starter
	closeAfterStart []io.Closer
	closeAfterWait  []io.Closer
	copies          []func() error
	copied          chan error
}

// New is a Cmd that start starts.
func New(start Starter) *Cmd { return &Cmd{start: start} }

// ExitError is a process that did not exit with status 0.
type ExitError struct{ Status syscall.WaitStatus }

func (e *ExitError) Error() string { return StatusString(e.Status) }

// ExitCode is the process's exit status, or -1 where a signal ended it.
func (e *ExitError) ExitCode() int { return e.Status.ExitStatus() }

// StdinPipe is a pipe to the process's stdin; Wait closes it.
func (c *Cmd) StdinPipe() (io.WriteCloser, error) {
	if c.Stdin != nil {
		return nil, errors.New("spawn: Stdin already set")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.Stdin = r
	c.closeAfterStart = append(c.closeAfterStart, r)
	c.closeAfterWait = append(c.closeAfterWait, &closeOnce{File: w})
	return c.closeAfterWait[len(c.closeAfterWait)-1].(io.WriteCloser), nil
}

// StdoutPipe is a pipe from the process's stdout; Wait closes it, so the
// caller reads it to its end before calling Wait.
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) { return c.outputPipe(&c.Stdout, "Stdout") }

// StderrPipe is StdoutPipe for stderr.
func (c *Cmd) StderrPipe() (io.ReadCloser, error) { return c.outputPipe(&c.Stderr, "Stderr") }

// outputPipe makes *stream the write end of a new pipe and returns its
// read end, which Wait closes.
func (c *Cmd) outputPipe(stream *io.Writer, name string) (io.ReadCloser, error) {
	if *stream != nil {
		return nil, errors.New("spawn: " + name + " already set")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	*stream = w
	c.closeAfterStart = append(c.closeAfterStart, w)
	c.closeAfterWait = append(c.closeAfterWait, r)
	return r, nil
}

// Start starts the process. Its copies of the streams are closed here
// whether it started or not.
func (c *Cmd) Start() error {
	if c.Process != nil {
		return errors.New("spawn: already started")
	}
	files := make([]*os.File, 0, 3+len(c.ExtraFiles))
	in, err := c.input()
	var out, errOut *os.File
	if err == nil {
		out, err = c.output(c.Stdout)
	}
	if err == nil {
		errOut = out
		if !sameWriter(c.Stdout, c.Stderr) {
			errOut, err = c.output(c.Stderr)
		}
	}
	if err == nil {
		files = append(files, in, out, errOut)
	}
	if err == nil {
		files = append(files, c.ExtraFiles...)
		c.Process, err = c.start(files, c.EndGroup)
	}
	closeAll(c.closeAfterStart)
	if err != nil {
		closeAll(c.closeAfterWait)
		return err
	}
	c.copied = make(chan error, len(c.copies))
	for _, copy := range c.copies {
		go func() { c.copied <- copy() }()
	}
	return nil
}

// Wait waits for the process to end and for the copies of its streams,
// then closes the pipes; an *ExitError says a status other than 0.
func (c *Cmd) Wait() error {
	if c.Process == nil {
		return errors.New("spawn: not started")
	}
	ws, err := c.Process.Wait()
	c.Status = ws
	var timeout <-chan time.Time
	if c.WaitDelay > 0 {
		t := time.NewTimer(c.WaitDelay)
		defer t.Stop()
		timeout = t.C
	}
	var copyErr error
wait:
	for range c.copies {
		select {
		case e := <-c.copied:
			copyErr = errors.Join(copyErr, e)
		case <-timeout:
			break wait
		}
	}
	closeAll(c.closeAfterWait)
	switch {
	case err != nil:
		return err
	case ws.Exited() && ws.ExitStatus() == 0:
		return copyErr
	}
	return &ExitError{Status: ws}
}

// Run starts the process and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// input is the process's descriptor 0.
func (c *Cmd) input() (*os.File, error) {
	switch r := c.Stdin.(type) {
	case nil:
		return c.null()
	case *os.File:
		return r, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.closeAfterStart = append(c.closeAfterStart, pr)
	c.closeAfterWait = append(c.closeAfterWait, pw)
	src := c.Stdin
	c.copies = append(c.copies, func() error {
		_, err := io.Copy(pw, src)
		// The process may end without reading it all: not the copy's fault.
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
			err = nil
		}
		if cerr := pw.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
		return err
	})
	return pr, nil
}

// output is the process's descriptor for w.
func (c *Cmd) output(w io.Writer) (*os.File, error) {
	switch f := w.(type) {
	case nil:
		return c.null()
	case *os.File:
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.closeAfterStart = append(c.closeAfterStart, pw)
	c.closeAfterWait = append(c.closeAfterWait, pr)
	c.copies = append(c.copies, func() error {
		_, err := io.Copy(w, pr)
		if errors.Is(err, os.ErrClosed) {
			err = nil // Wait gave up on it
		}
		return err
	})
	return pw, nil
}

// sameWriter reports whether a and b are one writer.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { _ = recover() }() // writers that cannot be compared are not the same
	return a == b
}

// null opens the null device for a stream not set.
func (c *Cmd) null() (*os.File, error) {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	c.closeAfterStart = append(c.closeAfterStart, f)
	return f, nil
}

// closeOnce is a pipe's end that the caller and Wait may both close.
type closeOnce struct {
	*os.File
	once sync.Once
	err  error
}

func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.File.Close() })
	return c.err
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		_ = c.Close()
	}
}
