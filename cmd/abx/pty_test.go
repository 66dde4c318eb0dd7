//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// A terminal the story allocates: abx runs on its slave side as on a
// user's terminal, and the story types into the master and reads the
// screen from it.
type ptySession struct {
	master, slave *os.File
	cmd           *exec.Cmd
	before        *unix.Termios // the slave's mode before abx ran

	mu     sync.Mutex
	screen bytes.Buffer
	seen   int // how much of screen `pty wait` has matched already
	read   chan struct{}
}

// openPTY makes a pseudo-terminal pair of cols×rows.
func openPTY(cols, rows int) (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		_ = m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		_ = m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		_ = m.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}); err != nil {
		_ = m.Close()
		_ = s.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// cmdPTY drives a program on a terminal:
//
//	pty start ARGS...       run ARGS (abx ...) on a new 80×24 terminal, in the background
//	pty send 'TEXT'         type TEXT, Go escapes allowed ("\r", "\x03")
//	pty wait REGEXP [NAME]  wait (up to a minute) until the screen shows REGEXP, after what the last wait
//	                        matched; NAME is set to its first group
//	pty resize COLS ROWS    resize the terminal (the program gets SIGWINCH)
//	pty signal TERM|HUP|INT send the program a signal
//	pty paste FILE          type FILE's bytes at once
//	pty exit N              wait for the program's end and check its status
//	pty restored            the terminal's mode is what it was before the program ran
func cmdPTY(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: pty start|send|wait|resize|exit|restored ...")
	}
	p := holderOf(ts)
	switch args[0] {
	case "start":
		if p.s != nil && p.s.cmd.ProcessState == nil {
			ts.Fatalf("pty: a program runs already")
		}
		p.s = ptyStart(ts, args[1:])
	case "send":
		text, err := unescape(strings.Join(args[1:], " "))
		ts.Check(err)
		_, err = p.session(ts).master.WriteString(text)
		ts.Check(err)
	case "wait":
		if len(args) != 2 && len(args) != 3 {
			ts.Fatalf("usage: pty wait REGEXP [NAME]")
		}
		m := p.session(ts).wait(ts, regexp.MustCompile(args[1]), neg)
		if len(args) == 3 && len(m) > 1 {
			ts.Setenv(args[2], m[1])
		}
	case "resize":
		if len(args) != 3 {
			ts.Fatalf("usage: pty resize COLS ROWS")
		}
		cols, err1 := strconv.Atoi(args[1])
		rows, err2 := strconv.Atoi(args[2])
		ts.Check(errors.Join(err1, err2))
		ts.Check(unix.IoctlSetWinsize(int(p.session(ts).master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}))
	case "exit":
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		s := p.session(ts)
		// Its status is read from ProcessState below.
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = s.cmd.Process.Kill()
			ts.Fatalf("pty: the program did not end within a minute; screen:\n%s", s.text())
		}
		if got := s.cmd.ProcessState.ExitCode(); got != want {
			ts.Fatalf("pty: exit status %d, want %d; screen:\n%s", got, want, s.text())
		}
	case "signal":
		sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "INT": syscall.SIGINT}[args[1]]
		if sig == 0 {
			ts.Fatalf("usage: pty signal TERM|HUP|INT")
		}
		ts.Check(p.session(ts).cmd.Process.Signal(sig))
	case "paste":
		// The file's bytes, typed at once: as a terminal pastes them.
		_, err := p.session(ts).master.Write([]byte(ts.ReadFile(args[1])))
		ts.Check(err)
	case "restored":
		s := p.session(ts)
		now, err := unix.IoctlGetTermios(int(s.slave.Fd()), unix.TCGETS)
		ts.Check(err)
		if now.Lflag != s.before.Lflag || now.Iflag != s.before.Iflag || now.Oflag != s.before.Oflag {
			ts.Fatalf("pty: the terminal's mode was not restored: lflag %#x iflag %#x oflag %#x, was %#x %#x %#x",
				now.Lflag, now.Iflag, now.Oflag, s.before.Lflag, s.before.Iflag, s.before.Oflag)
		}
	default:
		ts.Fatalf("pty: unknown %q", args[0])
	}
}

// ptyHolder is a story's terminal.
type ptyHolder struct{ s *ptySession }

var (
	holdersMu sync.Mutex
	holders   = map[*testscript.TestScript]*ptyHolder{}
)

func init() { storyCmds["pty"] = cmdPTY }

// holderOf is ts's terminal holder, made on first use.
func holderOf(ts *testscript.TestScript) *ptyHolder {
	holdersMu.Lock()
	defer holdersMu.Unlock()
	h := holders[ts]
	if h == nil {
		h = &ptyHolder{}
		holders[ts] = h
		ts.Defer(func() {
			holdersMu.Lock()
			delete(holders, ts)
			holdersMu.Unlock()
		})
	}
	return h
}

func (h *ptyHolder) session(ts *testscript.TestScript) *ptySession {
	if h.s == nil {
		ts.Fatalf("pty: no program runs: pty start first")
	}
	return h.s
}

func ptyStart(ts *testscript.TestScript, args []string) *ptySession {
	path, err := exec.LookPath(args[0])
	if p := ts.Getenv("PATH"); err != nil || p != "" {
		for _, dir := range strings.Split(p, ":") {
			if _, err := os.Stat(dir + "/" + args[0]); err == nil {
				path = dir + "/" + args[0]
				break
			}
		}
	}
	if path == "" {
		ts.Fatalf("pty: %s not found", args[0])
	}
	m, sl, err := openPTY(80, 24)
	ts.Check(err)
	before, err := unix.IoctlGetTermios(int(sl.Fd()), unix.TCGETS)
	ts.Check(err)
	cmd := exec.Command(path, args[1:]...)
	cmd.Dir = ts.Getenv("WORK")
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); ts.Getenv(k) == "" {
			env = append(env, kv)
		}
	}
	for _, k := range []string{"PATH", "HOME", "ABX_PROVIDER", "ABX_ALICLOUD_CONTAINER_BASE_URL", "ABX_ALICLOUD_CONTAINER_API_KEY",
		"ABX_ALICLOUD_CONTAINER_PROTOCOL", "ABX_ALICLOUD_CONTAINER_DOMAIN", "TERM"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sl, sl, sl
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	ts.Check(cmd.Start())
	s := &ptySession{master: m, slave: sl, cmd: cmd, before: before, read: make(chan struct{}, 1)}
	go s.pump()
	ts.Defer(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
		_ = m.Close()
		_ = sl.Close()
	})
	return s
}

// pump keeps what the program writes.
func (s *ptySession) pump() {
	buf := make([]byte, 4096)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.screen.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.read <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

func (s *ptySession) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.screen.String()
}

// wait waits until re matches the screen after the last match, and
// returns the match (with neg: checks that it does not match, now).
func (s *ptySession) wait(ts *testscript.TestScript, re *regexp.Regexp, neg bool) []string {
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		rest := s.screen.Bytes()[s.seen:]
		m := re.FindSubmatchIndex(rest)
		var groups []string
		if m != nil && !neg {
			for i := 0; i+1 < len(m); i += 2 {
				if m[i] >= 0 {
					groups = append(groups, string(rest[m[i]:m[i+1]]))
				} else {
					groups = append(groups, "")
				}
			}
			s.seen += m[1]
		}
		s.mu.Unlock()
		if neg {
			if m != nil {
				ts.Fatalf("pty: the screen shows %q", re)
			}
			return nil
		}
		if m != nil {
			return groups
		}
		select {
		case <-s.read:
		case <-deadline:
			ts.Fatalf("pty: %q not on the screen within a minute; it shows:\n%s", re, fmt.Sprintf("%q", s.text()))
		}
	}
}

// unescape reads Go's backslash escapes ("\r", "\x03"); quotes are plain
// characters.
func unescape(s string) (string, error) {
	var b strings.Builder
	for s != "" {
		r, _, rest, err := strconv.UnquoteChar(s, 0)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q: %w", s, err)
		}
		b.WriteRune(r)
		s = rest
	}
	return b.String(), nil
}
