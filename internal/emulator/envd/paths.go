//go:build unix

package envd

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/envd"
)

// The sandbox's users, as on E2B's templates.
const (
	User = "user"
	Root = "root"
)

// Home is the sandbox user's home directory on this machine.
func (s *Server) Home() string { h, _ := s.view.host("/home/user"); return h }

// Prepare makes the sandbox's own directories under root, with the modes
// a sandbox has (/tmp sticky and open to all, /root private) and, for
// isolated processes, owned by the user they run as.
func Prepare(root string, isolated bool) error {
	if err := os.MkdirAll(filepath.Join(root, "home"), 0o755); err != nil {
		return err
	}
	if isolated {
		if err := writeAccounts(root); err != nil {
			return err
		}
		if err := jail.Prepare(filepath.Join(root, TopDir), 0o755); err != nil {
			return err
		}
	}
	for _, d := range Writable {
		mode := os.FileMode(0o755)
		switch d {
		case "/tmp", "/var/tmp":
			mode = 0o777 | os.ModeSticky
		case "/root":
			mode = 0o700
		}
		dir := filepath.Join(root, filepath.FromSlash(d[1:]))
		var err error
		if isolated {
			err = jail.Prepare(dir, mode)
		} else if err = os.MkdirAll(dir, 0o755); err == nil {
			err = os.Chmod(dir, mode)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// homeOf is a user's home inside the sandbox.
func homeOf(user string) string {
	if user == Root {
		return "/root"
	}
	return "/home/user"
}

// checkUser refuses users the sandbox does not have, and names the default.
func checkUser(user string) (string, error) {
	switch user {
	case "":
		return User, nil
	case User, Root:
		return user, nil
	}
	return "", connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("invalid username: '%s'", user))
}

// located is a sandbox path, resolved, and where it is on this machine.
// asked is the path as the client named it, made absolute and clean but
// with its links unresolved: envd names entries by it.
type located struct {
	path, host, asked string
	m                 mount
}

// locate turns what a client sent into a resolved sandbox path: "~" and
// relative paths are under the user's home; symlinks are followed inside
// the view (the last one only when follow).
func (s *Server) locate(p, user string, follow bool) (located, error) {
	if p == "" {
		return located{}, connect.NewError(connect.CodeInvalidArgument, errors.New("path is required"))
	}
	if s.opts.Isolated && len(s.opts.Lowers) > 0 {
		// A clone's files are its box's (its own directories over its
		// snapshots'): the box its create started is waited for.
		if _, err := s.box(); err != nil {
			return located{}, connect.NewError(connect.CodeInternal, err)
		}
	}
	if strings.ContainsRune(p, 0) {
		return located{}, connect.NewError(connect.CodeInvalidArgument, errors.New("path contains a NUL byte"))
	}
	home := homeOf(user)
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = home + strings.TrimPrefix(p, "~")
	case !path.IsAbs(p):
		p = home + "/" + p
	}
	asked := path.Clean(p)
	resolved, err := s.view.resolve(asked, follow)
	if err != nil {
		// A loop of links: envd's lstat meets it.
		return located{}, internalf("error getting file info: %s", osWords("lstat", asked, err))
	}
	h, m := s.view.host(resolved)
	return located{path: resolved, host: h, asked: asked, m: m}, nil
}

// needUser enforces envd 0.2.10's lack of a default user on RPCs.
func (s *Server) needUser(h http.Header) error {
	if userOf(h) == "" && !s.version.AtLeast(envd.DefaultUser) {
		return connect.NewError(connect.CodeUnauthenticated, errors.New("no user specified"))
	}
	return nil
}
