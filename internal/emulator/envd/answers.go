//go:build unix

package envd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"connectrpc.com/connect"
)

// envd 0.2.10 words a failure of the operating system as Go does, "<op>
// <path>: <reason>" ("lstat /home/user/x: no such file or directory"),
// wrapped in words of its own ("file not found: …"), and gives most of
// them the code internal (docs/emulator.md, "Failures"). The helpers here
// word the emulator's failures the same way, naming the sandbox's paths,
// never this machine's.

// reasonOf is the operating system's reason of err, without the
// operation and path Go puts around it. The view's own failures (a
// hidden path, a write outside the sandbox's directories) are the errno
// the kernel would give.
func reasonOf(err error) error {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return errno
	case errors.Is(err, fs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, fs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, fs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, errLoop):
		return syscall.ELOOP
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// osWords is Go's wording of op failing on p with err.
func osWords(op, p string, err error) string {
	return fmt.Sprintf("%s %s: %v", op, p, reasonOf(err))
}

// internalf is envd's internal error, worded.
func internalf(format string, args ...any) error {
	return connect.NewError(connect.CodeInternal, fmt.Errorf(format, args...))
}

// errReadOnly is what a write outside the sandbox's directories meets.
var errReadOnly = syscall.EACCES

// writable reports whether the resolved l may be changed: it lies in one
// of the sandbox's directories and is not one of them, as the read-only
// rest of the view and the mounts are not.
func (s *Server) writable(l located) bool {
	return l.m.writable && !s.view.isTarget(l.path)
}

// ensureDirs makes the resolved sandbox directory p and its missing
// parents, one at a time, as envd does before it creates a file or a
// directory; its error is envd's, in its words ("failed to create
// directory: mkdir /etc/x: permission denied", "path is a file: …").
func (s *Server) ensureDirs(p string) error {
	var subs []string
	for sub := p; ; sub = path.Dir(sub) {
		subs = append([]string{sub}, subs...)
		if path.Dir(sub) == "/" || sub == "/" {
			break
		}
	}
	for _, sub := range subs {
		st, err := s.view.lstat(sub)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := s.view.mkdir(sub); err != nil {
				return fmt.Errorf("failed to create directory: %s", osWords("mkdir", sub, err))
			}
		case err != nil:
			return fmt.Errorf("failed to stat directory: %s", osWords("stat", sub, err))
		case !st.IsDir():
			return fmt.Errorf("path is a file: %s", sub)
		}
	}
	return nil
}

// firstMissing is the first of p's leading paths that does not exist, as
// envd's resolution of links names it when it stops there.
func (s *Server) firstMissing(p string) string {
	sub := "/"
	for _, elem := range splitPath(p) {
		sub = path.Join(sub, elem)
		if _, err := s.view.lstat(sub); err != nil {
			return sub
		}
	}
	return p
}

func splitPath(p string) []string {
	var out []string
	for p != "/" && p != "." && p != "" {
		out = append([]string{path.Base(p)}, out...)
		p = path.Dir(p)
	}
	return out
}
