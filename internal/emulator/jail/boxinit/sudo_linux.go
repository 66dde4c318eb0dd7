//go:build linux

package boxinit

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A sandbox's template gives user passwordless sudo. In a box, sudo is
// this binary, bound at /usr/bin/sudo: it asks the box's init, over a
// socket of the box's own (SudoSocket, which any process of the box may
// use, as any may run passwordless sudo), to run the command as root,
// with its standard streams, and exits as the command does. The init
// starts it as it starts envd's commands, as uid 0 of a user namespace of
// its own: root of the sandbox, with no more power over this machine than
// user has.

// SudoSocket is where, inside a box, its init takes sudo's commands.
const SudoSocket = "/run/abx-sudo"

// securePath is the PATH a command run with sudo gets: Debian's
// secure_path.
const securePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

const sudoUsage = "usage: sudo -h | -K | -k | -V\nusage: sudo [-EHn] [-u user] [-i | -s] [command [arg ...]]\n"

// sudoLong are the long options sudo takes, as their short ones.
var sudoLong = map[string]string{"preserve-env": "E", "login": "i", "shell": "s", "non-interactive": "n",
	"set-home": "H", "help": "h", "version": "V"}

// sudoRequest is what sudo's command line asks for.
type sudoRequest struct {
	keepEnv bool // -E
	login   bool // -i
	shell   bool // -s
	argv    []string
}

// parseSudo reads sudo's options; done is set, with the status to exit
// with, when they ask for nothing to run (-h, -V, -k, -v) or are wrong.
func parseSudo(args []string) (req sudoRequest, done bool, status int) {
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		args = args[1:]
		if long, ok := strings.CutPrefix(a, "--"); ok {
			short, known := sudoLong[long]
			if !known {
				fmt.Fprintf(os.Stderr, "sudo: unrecognized option '--%s'\n%s", long, sudoUsage)
				return req, true, 1
			}
			a = "-" + short
		}
		for i := 1; i < len(a); i++ {
			switch a[i] {
			case 'E':
				req.keepEnv = true
			case 'i':
				req.login = true
			case 's':
				req.shell = true
			case 'n', 'H', 'S':
			case 'k', 'K', 'v':
				// Nothing to forget or renew: alone, they are done.
				if len(args) == 0 && i == len(a)-1 {
					return req, true, 0
				}
			case 'h':
				fmt.Print(sudoUsage)
				return req, true, 0
			case 'V':
				fmt.Println("Sudo version 1.9 (abx's, for an emulated sandbox: passwordless, to root)")
				return req, true, 0
			case 'u':
				who := a[i+1:]
				if who == "" {
					if len(args) == 0 {
						fmt.Fprintf(os.Stderr, "sudo: option requires an argument -- 'u'\n%s", sudoUsage)
						return req, true, 1
					}
					who, args = args[0], args[1:]
				}
				if who != "root" && who != "#0" && who != "0" {
					fmt.Fprintf(os.Stderr, "sudo: this sandbox's sudo runs commands as root only, not %s\n", who)
					return req, true, 1
				}
				i = len(a)
			default:
				fmt.Fprintf(os.Stderr, "sudo: invalid option -- '%c'\n%s", a[i], sudoUsage)
				return req, true, 1
			}
		}
	}
	req.argv = args
	if len(args) == 0 && !req.login && !req.shell {
		fmt.Fprint(os.Stderr, sudoUsage)
		return req, true, 1
	}
	return req, false, 0
}

// command is the command line and environment the init runs as root.
func (r sudoRequest) command(environ []string, uid int) (argv, env []string, dir string) {
	argv = r.argv
	switch {
	case r.login && len(argv) == 0:
		argv = []string{"/bin/bash", "-l"}
	case r.login:
		argv = []string{"/bin/bash", "-l", "-c", strings.Join(argv, " ")}
	case r.shell && len(argv) == 0:
		argv = []string{"/bin/bash"}
	case r.shell:
		argv = []string{"/bin/bash", "-c", strings.Join(argv, " ")}
	}
	dir, _ = os.Getwd()
	if r.login || dir == "" {
		dir = "/root"
	}
	name := strconv.Itoa(uid)
	switch uid {
	case 0:
		name = "root"
	case UserUID:
		name = "user"
	}
	set := map[string]string{"HOME": "/root", "USER": "root", "LOGNAME": "root", "SHELL": "/bin/bash",
		"PATH": securePath, "SUDO_USER": name, "SUDO_UID": strconv.Itoa(uid), "SUDO_GID": strconv.Itoa(uid),
		"SUDO_COMMAND": strings.Join(argv, " ")}
	// What env_reset keeps, or everything with -E.
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, overridden := set[k]; overridden {
			continue
		}
		if r.keepEnv || k == "TERM" || k == "COLORTERM" || k == "DISPLAY" || k == "TZ" ||
			k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return argv, env, dir
}

// runSudo is sudo in a box: it asks the init to run the command as root
// and exits as the command does (128+n when signal n ended it). A Ctrl-C
// ends sudo, and its connection's end takes the command with it.
func runSudo(args []string) int {
	req, done, status := parseSudo(args)
	if done {
		return status
	}
	argv, env, dir := req.command(os.Environ(), os.Getuid())
	c, err := dialSudo()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sudo: %v\n", err)
		return 1
	}
	defer c.Close()
	spec := Spec{Root: true, Dir: dir, Args: argv, Env: env}
	if err := c.Send(Message{Op: OpSpec, Spec: &spec}, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "sudo: %v\n", err)
		return 1
	}
	for {
		m, files, err := c.Recv()
		CloseFiles(files)
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "sudo: the sandbox's init has ended")
			return 1
		case m.Op == OpExit && m.Error != "":
			fmt.Fprintf(os.Stderr, "sudo: %s\n", m.Error)
			return 1
		case m.Op == OpExit && m.Status != nil:
			ws := syscall.WaitStatus(*m.Status)
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
	}
}

// dialSudo connects to the box's sudo socket.
func dialSudo() (*Conn, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: SudoSocket}); err != nil {
		_ = unix.Close(fd)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED) {
			return nil, errors.New("this is abx's sudo, which works inside an emulated sandbox only")
		}
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	return NewConn(os.NewFile(uintptr(fd), "sudo"))
}

// listenSudo opens the box's sudo socket in top (SudoSocket under the new
// root, before the root is pivoted), for every process of the box. It
// binds the socket by a name relative to its directory: the path on this
// machine may be longer than a socket's address takes (107 bytes).
func listenSudo(top string) (*os.File, error) {
	dir, name := path.Split(SudoSocket)
	if err := os.Chdir(top + dir); err != nil {
		return nil, err
	}
	defer func() { _ = os.Chdir("/") }()
	ln, err := listen(name)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(name, 0o666); err != nil {
		_ = ln.Close()
		return nil, err
	}
	return ln, nil
}

// serveSudo runs each command sudo sends as root, as it runs envd's.
func (b *boxInit) serveSudo(ln *os.File) {
	for {
		c, err := accept(ln)
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			m, files, err := c.Recv()
			if err != nil {
				return
			}
			if m.Op != OpSpec || m.Spec == nil || len(m.Spec.Args) == 0 {
				CloseFiles(files)
				return
			}
			spec := *m.Spec
			spec.Root, spec.Tty, spec.EndGroup = true, false, false
			if !path.IsAbs(spec.Dir) {
				spec.Dir = "/root"
			}
			b.run(c, spec, files)
		}()
	}
}
