//go:build unix

package envd

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/envd"
)

// Paths mean the same thing to processes and to the files API: they are
// real paths on this machine, confined to the sandbox's directory. A
// relative path is under the user's home, Root/home/user.

// Home is the sandbox user's home directory.
func (s *Server) Home() string { return filepath.Join(s.opts.Root, "home", "user") }

// Resolve maps a sandbox path to a real one, refusing anything outside
// Root. The code interpreter uses it too, so that its contexts, exec and
// files agree on what a path means.
func (s *Server) Resolve(p string) (string, error) {
	if p == "" {
		return "", connect.NewError(connect.CodeInvalidArgument, errors.New("path is required"))
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(s.Home(), strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Home(), p)
	}
	p = filepath.Clean(p)
	root := filepath.Clean(s.opts.Root)
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", connect.NewError(connect.CodePermissionDenied,
			errors.New("path "+p+" is outside the sandbox directory "+root))
	}
	return p, nil
}

// needUser enforces envd 0.2.10's lack of a default user on RPCs.
func (s *Server) needUser(h http.Header) error {
	if userOf(h) == "" && !s.version.AtLeast(envd.DefaultUser) {
		return connect.NewError(connect.CodeUnauthenticated, errors.New("no user specified"))
	}
	return nil
}

// fsError turns an os error into envd's Connect code.
func fsError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		return connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, os.ErrExist):
		return connect.NewError(connect.CodeAlreadyExists, err)
	case errors.Is(err, os.ErrPermission):
		return connect.NewError(connect.CodePermissionDenied, err)
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return err
	}
	return connect.NewError(connect.CodeInternal, err)
}
