//go:build linux

package jail

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The relay stands for a command on this machine: the emulator starts it
// as it would start the command (its standard streams, its extra
// descriptors, its signals, its exit status), and it hands the command
// and its descriptors to the box's init, which runs it in the box. It
// keeps none of the descriptors, so the command's streams end with the
// command; it passes every signal it gets on; it ends as the command did,
// by the same status or the same signal. If the box ends first, the relay
// ends as killed, as the command was.

// relay is the relay.
func relay(spec Spec) int {
	// Signals that come before the command runs wait for it.
	signals := make(chan os.Signal, 16)
	signal.Notify(signals)
	// Its own words (a command not found) go where the command's stderr
	// goes, which the relay keeps no copy of once the command has it.
	errFD, err := syscall.Dup(2)
	if err != nil {
		return exitSetup
	}
	errOut := os.NewFile(uintptr(errFD), "stderr")
	spec.RelayPID = os.Getpid()
	nc, err := net.DialTimeout("unixpacket", spec.Socket, startWait)
	if err != nil {
		return killedSelf() // the box is gone: its commands are killed
	}
	c := &conn{c: nc.(*net.UnixConn)}
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for i := range spec.ExtraFiles {
		files = append(files, os.NewFile(uintptr(3+i), "extra"))
	}
	if err := c.send(message{Op: opSpec, Spec: &spec}, files...); err != nil {
		fmt.Fprintf(errOut, "%s: %v\n", RunName, err)
		return exitSetup
	}
	dropDescriptors(3 + spec.ExtraFiles)
	go func() {
		for sig := range signals {
			switch sig {
			case syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPIPE, syscall.SIGWINCH:
				continue // the relay's own business
			}
			if s, ok := sig.(syscall.Signal); ok {
				_ = c.send(message{Op: opSignal, Signal: int(s)})
			}
		}
	}()
	for {
		m, files, err := c.recv()
		closeAll(files)
		switch {
		case err != nil:
			return killedSelf()
		case m.Op == opExit && m.Error != "":
			fmt.Fprintf(errOut, "%s: %s\n", InitName, m.Error)
			return m.Code
		case m.Op == opExit && m.Status != nil:
			return endAs(syscall.WaitStatus(*m.Status))
		}
	}
}

// dropDescriptors points 0 .. n-1 at /dev/null: the command holds the
// streams, and a pipe must see its end when the command's copy closes.
func dropDescriptors(n int) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	for fd := range n {
		_ = syscall.Dup3(int(null.Fd()), fd, 0)
	}
	_ = null.Close()
}

// endAs ends the relay as the command ended: by the same signal where the
// relay can end by it once its handler is reset, else with its shell
// status.
func endAs(ws syscall.WaitStatus) int {
	if ws.Signaled() && diesBy[ws.Signal()] {
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		time.Sleep(time.Second) // the signal ends the relay meanwhile
	}
	if ws.Signaled() {
		// Signals Go's runtime handles itself (SIGSEGV, SIGQUIT, ...)
		// would not end the relay the same way: their shell status.
		return abxerr.SignalStatus(int(ws.Signal()))
	}
	return ws.ExitStatus()
}

// killedSelf ends the relay as a killed command ends.
func killedSelf() int {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Second)
	return abxerr.SignalStatus(int(syscall.SIGKILL))
}

// diesBy are the signals the relay can end by itself, re-raised: those
// Go's runtime leaves to their default action once reset.
var diesBy = map[syscall.Signal]bool{syscall.SIGHUP: true, syscall.SIGINT: true, syscall.SIGTERM: true,
	syscall.SIGUSR1: true, syscall.SIGUSR2: true, syscall.SIGALRM: true, syscall.SIGKILL: true}
