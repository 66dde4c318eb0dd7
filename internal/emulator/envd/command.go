//go:build unix

package envd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// Command makes (without starting it) the command argv, run as user in
// the sandbox directory dir ("" is the user's home) with the sandbox's
// environment and env. When isolated it runs in the sandbox's box, forked
// by its init; otherwise on this machine, in the sandbox's directories.
// Its process leads a session of its own. The code interpreter starts
// its kernels with it.
func (s *Server) Command(user, dir string, argv []string, env map[string]string) (*spawn.Cmd, error) {
	return s.command(user, dir, argv, env, false)
}

// command is Command; with tty, the process starts on a terminal: the
// caller sets its standard streams to a pty's slave end (openPTY), which
// becomes the controlling terminal of the session the process leads.
func (s *Server) command(user, dir string, argv []string, env map[string]string, tty bool) (*spawn.Cmd, error) {
	user, err := checkUser(user)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = homeOf(user)
	}
	l, err := s.locate(dir, user, true)
	if err != nil {
		return nil, err
	}
	if st, err := s.view.lstat(l.path); err != nil || !st.IsDir() {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("invalid cwd %s: not a directory", l.path))
	}
	procEnv := s.processEnv(user, env)
	if !s.opts.Isolated {
		name := argv[0]
		if p, err := s.lookPath(name, procEnv); err == nil {
			name = p
		}
		cmd := exec.Command(name, argv[1:]...)
		cmd.Args[0] = argv[0]
		cmd.Dir, cmd.Env = l.host, procEnv
		// Its own session: not the emulator's terminal, but its own pty's
		// (descriptor 0 of the child) where it has one.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: tty, Ctty: 0}
		return spawn.New(spawn.Host(cmd)), nil
	}
	b, err := s.box()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	return b.Command(jail.Spec{Root: user == Root, Dir: l.path, Args: argv, Env: procEnv, Tty: tty}), nil
}

// Boot starts the sandbox's box in the background, as a real sandbox
// boots when it is made, so that its first command does not wait for it.
// A box that fails to start fails that command, with the reason.
func (s *Server) Boot() {
	if s.opts.Isolated {
		go func() { _, _ = s.box() }()
	}
}

// box is the sandbox's box (package jail), started by Boot or by its
// first command: every process of the sandbox runs in it, and pausing or
// killing the sandbox pauses or kills the box.
func (s *Server) box() (*jail.Box, error) {
	s.boxMu.Lock()
	defer s.boxMu.Unlock()
	if s.closed {
		return nil, errors.New("the sandbox is gone")
	}
	if s.jail != nil {
		return s.jail, nil
	}
	spec := jail.BoxSpec{Top: s.view.top, Layers: filepath.Join(s.opts.Root, LayersDir), Hide: s.opts.Hide,
		OwnNetwork: true, Carry: !s.opts.NoInternet, Lowers: s.opts.Lowers}
	for _, t := range Writable {
		h, _ := s.view.host(t)
		spec.Binds = append(spec.Binds, jail.Bind{Source: h, Target: t})
	}
	for _, f := range []string{"passwd", "group"} {
		if src := filepath.Join(s.opts.Root, "etc", f); fileExists(src) {
			spec.Binds = append(spec.Binds, jail.Bind{Source: src, Target: "/etc/" + f, ReadOnly: true})
		}
	}
	started := time.Now()
	b, err := jail.StartBox(spec, s.egress)
	if err != nil {
		return nil, err
	}
	s.jail, s.jailAt = b, started
	if b.Layered() || len(s.opts.Lowers) > 0 {
		// What the sandbox writes over this machine's directories, or
		// over its snapshots', is in its box: the files API reaches it
		// there.
		if root, path, err := b.Root(); err == nil {
			s.view.setBox(root, path)
		}
	}
	return b, nil
}

// processEnv is the environment of a user's processes: envd's defaults,
// the sandbox's variables, then the call's. Isolated processes see the
// sandbox's paths; the others their directories on this machine.
func (s *Server) processEnv(user string, extra map[string]string) []string {
	home, tmp := homeOf(user), ""
	if !s.opts.Isolated {
		home, _ = s.view.host(home)
		tmp, _ = s.view.host("/tmp")
	}
	env := []string{"HOME=" + home, "USER=" + user, "LOGNAME=" + user, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	if tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	for _, m := range []map[string]string{s.opts.Env, extra} {
		for k, v := range m {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// lookPath finds name on the PATH of env, as the process will see it:
// through the view when it runs in one.
func (s *Server) lookPath(name string, env []string) (string, error) {
	exists := func(p string) bool {
		h := p
		if s.opts.Isolated {
			h, _ = s.view.host(path.Clean(p))
		}
		st, err := os.Stat(h)
		return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	}
	if strings.Contains(name, "/") {
		if exists(name) {
			return name, nil
		}
		return "", exec.ErrNotFound
	}
	for _, kv := range env {
		if dirs, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range strings.Split(dirs, ":") {
				if full := dir + "/" + name; path.IsAbs(dir) && exists(full) {
					return full, nil
				}
			}
		}
	}
	return "", exec.ErrNotFound
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// writeAccounts gives the sandbox /etc/passwd and /etc/group entries for
// user (uid and gid 1000), over this machine's, so that whoami and ~user
// work inside.
func writeAccounts(root string) error {
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		return err
	}
	for _, f := range []struct{ name, entry string }{
		{"passwd", fmt.Sprintf("user:x:%d:%d::/home/user:/bin/bash", jail.UserUID, jail.UserGID)},
		{"group", fmt.Sprintf("user:x:%d:", jail.UserGID)},
	} {
		host, _ := os.ReadFile("/etc/" + f.name)
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(host))
		for sc.Scan() {
			fields := strings.Split(sc.Text(), ":")
			if len(fields) > 2 && (fields[0] == "user" || fields[2] == "1000") {
				continue // the sandbox's user takes the name and the id
			}
			out.WriteString(sc.Text() + "\n")
		}
		out.WriteString(f.entry + "\n")
		if err := os.WriteFile(filepath.Join(root, "etc", f.name), out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
