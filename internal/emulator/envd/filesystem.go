//go:build unix

package envd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// filesystemService implements envd's Filesystem service on the sandbox
// directory. Watching is not offered (not a capability of this provider).
type filesystemService struct {
	filesystemconnect.UnimplementedFilesystemHandler
	s *Server
}

func (h *filesystemService) entry(path string) (*pb.EntryInfo, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, fsError(err)
	}
	return h.s.entryInfo(path, st), nil
}

// entryInfo describes a file as envd does; 0.2.10 has no symlink type and
// no metadata.
func (s *Server) entryInfo(path string, st fs.FileInfo) *pb.EntryInfo {
	e := &pb.EntryInfo{
		Name: st.Name(), Path: path, Size: st.Size(), Mode: uint32(st.Mode().Perm()),
		Permissions: st.Mode().String(), ModifiedTime: timestamppb.New(st.ModTime()),
		Type: pb.FileType_FILE_TYPE_FILE,
	}
	switch {
	case st.IsDir():
		e.Type = pb.FileType_FILE_TYPE_DIRECTORY
		e.Mode |= uint32(fs.ModeDir)
	case st.Mode()&fs.ModeSymlink != 0 && s.version.AtLeast(envd.Metadata):
		e.Type = pb.FileType_FILE_TYPE_SYMLINK
		if target, err := os.Readlink(path); err == nil {
			e.SymlinkTarget = &target
		}
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		e.Owner, e.Group = lookupUser(sys.Uid), lookupGroup(sys.Gid)
	}
	return e
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
	if err := h.s.needUser(req.Header()); err != nil {
		return nil, err
	}
	p, err := h.s.Resolve(req.Msg.GetPath())
	if err != nil {
		return nil, err
	}
	e, err := h.entry(p)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&pb.StatResponse{Entry: e}), nil
}

func (h *filesystemService) MakeDir(_ context.Context, req *connect.Request[pb.MakeDirRequest]) (*connect.Response[pb.MakeDirResponse], error) {
	if err := h.s.needUser(req.Header()); err != nil {
		return nil, err
	}
	p, err := h.s.Resolve(req.Msg.GetPath())
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(p); err == nil {
		if st.IsDir() {
			return nil, connect.NewError(connect.CodeAlreadyExists, fmt.Errorf("directory already exists: %s", p))
		}
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path already exists but it is not a directory: %s", p))
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, fsError(err)
	}
	// 0.2.10 answers with the name, type and path only.
	return connect.NewResponse(&pb.MakeDirResponse{Entry: &pb.EntryInfo{
		Name: filepath.Base(p), Type: pb.FileType_FILE_TYPE_DIRECTORY, Path: p}}), nil
}

func (h *filesystemService) Move(_ context.Context, req *connect.Request[pb.MoveRequest]) (*connect.Response[pb.MoveResponse], error) {
	if err := h.s.needUser(req.Header()); err != nil {
		return nil, err
	}
	src, err := h.s.Resolve(req.Msg.GetSource())
	if err != nil {
		return nil, err
	}
	dst, err := h.s.Resolve(req.Msg.GetDestination())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, fsError(err)
	}
	if err := os.Rename(src, dst); err != nil {
		return nil, fsError(err)
	}
	e, err := h.entry(dst)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&pb.MoveResponse{Entry: e}), nil
}

func (h *filesystemService) ListDir(_ context.Context, req *connect.Request[pb.ListDirRequest]) (*connect.Response[pb.ListDirResponse], error) {
	if err := h.s.needUser(req.Header()); err != nil {
		return nil, err
	}
	root, err := h.s.Resolve(req.Msg.GetPath())
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fsError(err)
	}
	if !st.IsDir() {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path is not a directory: %s", root))
	}
	depth := int(req.Msg.GetDepth())
	if depth == 0 {
		depth = 1
	}
	out := &pb.ListDirResponse{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		level := countSeparators(rel) + 1
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out.Entries = append(out.Entries, h.s.entryInfo(p, info))
		if d.IsDir() && level >= depth {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil && !errors.Is(err, filepath.SkipDir) {
		return nil, fsError(err)
	}
	return connect.NewResponse(out), nil
}

func countSeparators(p string) int {
	n := 0
	for _, r := range p {
		if r == filepath.Separator {
			n++
		}
	}
	return n
}

func (h *filesystemService) Remove(_ context.Context, req *connect.Request[pb.RemoveRequest]) (*connect.Response[pb.RemoveResponse], error) {
	if err := h.s.needUser(req.Header()); err != nil {
		return nil, err
	}
	p, err := h.s.Resolve(req.Msg.GetPath())
	if err != nil {
		return nil, err
	}
	if p == filepath.Clean(h.s.opts.Root) {
		return nil, connect.NewError(connect.CodePermissionDenied, errors.New("cannot remove the sandbox directory"))
	}
	if err := os.RemoveAll(p); err != nil {
		return nil, fsError(err)
	}
	return connect.NewResponse(&pb.RemoveResponse{}), nil
}
