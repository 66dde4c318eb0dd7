//go:build unix

package envd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os/user"
	"path"
	"strconv"
	"syscall"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// filesystemService implements envd's Filesystem service on the sandbox
// directory: WatchDir is in watch.go, the polling watcher (CreateWatcher
// and the rest) in watchers.go.
type filesystemService struct {
	filesystemconnect.UnimplementedFilesystemHandler
	s *Server
}

// entry describes the sandbox path l (not following a last link), named
// as the client asked for it; one that is not there is envd's not_found.
func (h *filesystemService) entry(l located) (*pb.EntryInfo, error) {
	st, err := h.s.view.lstat(l.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("file not found: %s", osWords("lstat", l.asked, err)))
	case err != nil:
		return nil, internalf("error getting file info: %s", osWords("lstat", l.asked, err))
	}
	return h.s.entryInfo(l.asked, l.path, st), nil
}

// brokenLinkTarget is the first envd that names a link it cannot resolve
// as its own target (before, such a link has none).
var brokenLinkTarget = envd.Version{Major: 0, Minor: 5, Patch: 5}

// entryInfo describes the sandbox file p, found by lstat as st, under the
// name shown, as envd does (0.2.10 has no metadata). No envd reports a
// symlink type: a link is described by what it leads to, its type and
// mode the target's, with symlink_target the target's resolved path
// (docs/emulator.md). Here the target is resolved inside the view, so an
// answer never names a place the view does not have: a link out of it
// leads nowhere, as a dangling one does.
func (s *Server) entryInfo(shown, p string, st fs.FileInfo) *pb.EntryInfo {
	e := &pb.EntryInfo{
		Name: path.Base(shown), Path: shown, Size: st.Size(), Mode: modeOf(st),
		Permissions: st.Mode().String(), ModifiedTime: timestamppb.New(st.ModTime()),
		Type: typeOf(st),
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		switch target, tst, err := s.view.target(p); {
		case err == nil:
			e.SymlinkTarget, e.Type, e.Mode = &target, typeOf(tst), modeOf(tst)
		case s.version.AtLeast(brokenLinkTarget):
			own := p
			e.SymlinkTarget, e.Mode = &own, 0
		}
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		e.Owner, e.Group = s.ownerName(sys.Uid, false), s.ownerName(sys.Gid, true)
	}
	return e
}

// typeOf is envd's type of a file: a link, a device, a socket or a pipe
// is none of file and directory.
func typeOf(st fs.FileInfo) pb.FileType {
	switch {
	case st.Mode().IsRegular():
		return pb.FileType_FILE_TYPE_FILE
	case st.IsDir():
		return pb.FileType_FILE_TYPE_DIRECTORY
	}
	return pb.FileType_FILE_TYPE_UNSPECIFIED
}

// modeOf is an entry's mode as envd sends it: the permission bits alone,
// its type being the entry's type.
func modeOf(st fs.FileInfo) uint32 {
	return uint32(st.Mode().Perm())
}

// ownerName names a file's owner as the sandbox does: the user its
// processes run as is user, and root is root.
func (s *Server) ownerName(id uint32, group bool) string {
	if s.opts.Isolated {
		uid, gid := jail.Owner()
		if (!group && int(id) == uid) || (group && int(id) == gid) {
			return User
		}
	}
	if group {
		return lookupGroup(id)
	}
	return lookupUser(id)
}

func lookupUser(uid uint32) string {
	if u, err := user.LookupId(strconv.Itoa(int(uid))); err == nil {
		return u.Username
	}
	return strconv.Itoa(int(uid))
}

func lookupGroup(gid uint32) string {
	if g, err := user.LookupGroupId(strconv.Itoa(int(gid))); err == nil {
		return g.Name
	}
	return strconv.Itoa(int(gid))
}

func (h *filesystemService) Stat(_ context.Context, req *connect.Request[pb.StatRequest]) (*connect.Response[pb.StatResponse], error) {
	return asUserDo(h.s, func() (*connect.Response[pb.StatResponse], error) {
		if err := h.s.needUser(req.Header()); err != nil {
			return nil, err
		}
		l, err := h.locate(req.Header(), req.Msg.GetPath(), false)
		if err != nil {
			return nil, err
		}
		e, err := h.entry(l)
		if err != nil {
			return nil, err
		}
		return connect.NewResponse(&pb.StatResponse{Entry: e}), nil
	})
}

func (h *filesystemService) MakeDir(_ context.Context, req *connect.Request[pb.MakeDirRequest]) (*connect.Response[pb.MakeDirResponse], error) {
	return asUserDo(h.s, func() (*connect.Response[pb.MakeDirResponse], error) {
		if err := h.s.needUser(req.Header()); err != nil {
			return nil, err
		}
		l, err := h.locate(req.Header(), req.Msg.GetPath(), true)
		if err != nil {
			return nil, err
		}
		switch st, err := h.s.view.lstat(l.path); {
		case err == nil && st.IsDir():
			return nil, connect.NewError(connect.CodeAlreadyExists, fmt.Errorf("directory already exists: %s", l.asked))
		case err == nil:
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path already exists but it is not a directory: %s", l.asked))
		case !errors.Is(err, fs.ErrNotExist):
			return nil, internalf("error getting file info: %s", osWords("stat", l.asked, err))
		}
		if err := h.s.ensureDirs(l.path); err != nil {
			return nil, internalf("%w", err)
		}
		// 0.2.10 answers with the name, type and path only.
		return connect.NewResponse(&pb.MakeDirResponse{Entry: &pb.EntryInfo{
			Name: path.Base(l.asked), Type: pb.FileType_FILE_TYPE_DIRECTORY, Path: l.asked}}), nil
	})
}

func (h *filesystemService) Move(_ context.Context, req *connect.Request[pb.MoveRequest]) (*connect.Response[pb.MoveResponse], error) {
	return asUserDo(h.s, func() (*connect.Response[pb.MoveResponse], error) {
		if err := h.s.needUser(req.Header()); err != nil {
			return nil, err
		}
		src, err := h.locate(req.Header(), req.Msg.GetSource(), false)
		if err != nil {
			return nil, err
		}
		dst, err := h.locate(req.Header(), req.Msg.GetDestination(), false)
		if err != nil {
			return nil, err
		}
		// envd makes the destination's parents first, whatever the
		// source.
		parent, err := h.s.locate(path.Dir(dst.path), User, true)
		if err == nil {
			err = h.s.ensureDirs(parent.path)
		}
		if err != nil {
			return nil, internalf("%w", err)
		}
		if err := h.s.rename(src, dst); err != nil {
			words := osWords("rename", src.asked+" "+dst.asked, err)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("source file not found: %s", words))
			}
			return nil, internalf("error renaming: %s", words)
		}
		e, err := h.entry(dst)
		if err != nil {
			return nil, err
		}
		return connect.NewResponse(&pb.MoveResponse{Entry: e}), nil
	})
}

// rename moves src onto dst as Go's os.Rename does where envd runs: a
// directory at dst is not replaced (file exists), and the read-only rest
// of the view refuses the change (permission denied).
func (s *Server) rename(src, dst located) error {
	if _, err := s.view.lstat(src.path); err != nil {
		return err
	}
	if st, err := s.view.lstat(dst.path); err == nil && st.IsDir() {
		return syscall.EEXIST
	}
	if !s.writable(src) || !s.writable(dst) {
		return errReadOnly
	}
	return s.view.rename(src, dst)
}

func (h *filesystemService) ListDir(_ context.Context, req *connect.Request[pb.ListDirRequest]) (*connect.Response[pb.ListDirResponse], error) {
	return asUserDo(h.s, func() (*connect.Response[pb.ListDirResponse], error) {
		if err := h.s.needUser(req.Header()); err != nil {
			return nil, err
		}
		l, err := h.locate(req.Header(), req.Msg.GetPath(), true)
		if err != nil {
			return nil, err
		}
		st, err := h.s.view.lstat(l.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// envd resolves the path's links first, and says where that
			// stopped.
			return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("path not found: %s", osWords("lstat", h.s.firstMissing(l.path), err)))
		case err != nil:
			return nil, internalf("error getting file info: %s", osWords("stat", l.path, err))
		case !st.IsDir():
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path is not a directory: %s", l.path))
		}
		depth := int(req.Msg.GetDepth())
		if depth == 0 {
			depth = 1
		}
		out := &pb.ListDirResponse{}
		if err := h.walk(l.path, l.asked, depth, out); err != nil {
			return nil, internalf("error reading directory %s: %s", l.path, osWords("open", l.path, err))
		}
		return connect.NewResponse(out), nil
	})
}

// walk lists the sandbox directory dir and, down to depth levels, the
// directories in it, each through the view (so /tmp inside / is the
// sandbox's /tmp). Entries are named under shown, the path the client
// asked for, even when a link led to dir: envd does the same. Links to
// directories are listed, not entered.
func (h *filesystemService) walk(dir, shown string, depth int, out *pb.ListDirResponse) error {
	entries, err := h.s.view.readDir(dir)
	if err != nil {
		return err
	}
	for _, d := range entries {
		p, q := path.Join(dir, d.Name()), path.Join(shown, d.Name())
		st, err := h.s.view.lstat(p)
		if err != nil {
			continue // gone since it was listed
		}
		out.Entries = append(out.Entries, h.s.entryInfo(q, p, st))
		if st.IsDir() && depth > 1 {
			if err := h.walk(p, q, depth-1, out); err != nil && !errors.Is(err, fs.ErrPermission) {
				return err
			}
		}
	}
	return nil
}

func (h *filesystemService) Remove(_ context.Context, req *connect.Request[pb.RemoveRequest]) (*connect.Response[pb.RemoveResponse], error) {
	return asUserDo(h.s, func() (*connect.Response[pb.RemoveResponse], error) {
		if err := h.s.needUser(req.Header()); err != nil {
			return nil, err
		}
		l, err := h.locate(req.Header(), req.Msg.GetPath(), false)
		if err != nil {
			return nil, err
		}
		// Removing what is not there succeeds, wherever it is not.
		if _, err := h.s.view.lstat(l.path); errors.Is(err, fs.ErrNotExist) {
			return connect.NewResponse(&pb.RemoveResponse{}), nil
		}
		err = errReadOnly
		if h.s.writable(l) {
			err = h.s.view.removeAll(l)
		}
		if err != nil {
			return nil, internalf("error removing file or directory: %s", osWords("unlinkat", l.asked, err))
		}
		return connect.NewResponse(&pb.RemoveResponse{}), nil
	})
}

// locate resolves a path of a request, for its user.
func (h *filesystemService) locate(header http.Header, p string, follow bool) (located, error) {
	user, err := checkUser(userOf(header))
	if err != nil {
		return located{}, err
	}
	return h.s.locate(p, user, follow)
}

// asUserDo is asUser for a call with a result.
func asUserDo[T any](s *Server, fn func() (T, error)) (T, error) {
	var out T
	err := s.asUser(func() error {
		var err error
		out, err = fn()
		return err
	})
	return out, err
}
