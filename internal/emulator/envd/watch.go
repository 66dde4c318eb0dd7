//go:build unix

package envd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/fsnotify/fsnotify"

	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
)

// WatchDir streams the changes in a directory as envd 0.2.10 does
// (docs/emulator.md, "Watching"): a start event once the watch is in
// place, then one event per change and kind (one fsnotify event may carry
// several kinds: create, rename, chmod, write, remove, in that order),
// each named relative to the watched directory, and keepalives while
// nothing changes. A missing path is not_found; a file invalid_argument.
// The path is resolved through the sandbox's view as every call's is, and
// so is every subdirectory a recursive watch adds: a link leads nowhere
// outside the sandbox, and what the view hides is not watched.
func (h *filesystemService) WatchDir(ctx context.Context, req *connect.Request[pb.WatchDirRequest], stream *connect.ServerStream[pb.WatchDirResponse]) error {
	if err := h.s.needUser(req.Header()); err != nil {
		return err
	}
	l, err := h.locate(req.Header(), req.Msg.GetPath(), true)
	if err != nil {
		return err
	}
	// envd before RecursiveWatch does not know the field: it watches the
	// one directory.
	recursive := req.Msg.GetRecursive() && h.s.version.AtLeast(envd.RecursiveWatch)
	w, err := h.s.newWatch(l, recursive)
	if err != nil {
		return err
	}
	defer w.close()
	if err := stream.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Start{Start: &pb.WatchDirResponse_StartEvent{}}}); err != nil {
		return err
	}
	send := func(name string, op pb.EventType) error {
		return stream.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Filesystem{
			Filesystem: &pb.FilesystemEvent{Name: name, Type: op}}})
	}
	keepalive := keepaliveOf(req.Header())
	tick := time.NewTicker(keepalive)
	defer tick.Stop()
	gone := time.NewTicker(sandboxPoll)
	defer gone.Stop()
	for {
		select {
		case <-ctx.Done():
			return connect.NewError(connect.CodeCanceled, ctx.Err())
		case <-gone.C:
			if h.s.isClosed() {
				// The sandbox was killed: its envd, and the stream with it,
				// is gone.
				return connect.NewError(connect.CodeUnavailable, errors.New("the sandbox is gone"))
			}
		case <-tick.C:
			if err := stream.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Keepalive{Keepalive: &pb.WatchDirResponse_KeepAlive{}}}); err != nil {
				return err
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return connect.NewError(connect.CodeInternal, errors.New("watcher error channel closed"))
			}
			return connect.NewError(connect.CodeInternal, fmt.Errorf("watcher error: %w", err))
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return connect.NewError(connect.CodeInternal, errors.New("watcher event channel closed"))
			}
			if err := w.told(ev, recursive, func(name string, typ pb.EventType) error {
				if err := send(name, typ); err != nil {
					return err
				}
				tick.Reset(keepalive)
				return nil
			}); err != nil {
				return err
			}
		}
	}
}

// told hands emit each change one fsnotify event carries, in envd's order
// of kinds, named relative to the watched directory; an event of nothing
// the sandbox sees is none. With recursive, a new directory is watched
// too, before its creation is told, so that a client that saw it sees
// what is made in it; what was made before the watch was in place is not
// told, as with inotifywait -r.
func (w *watch) told(ev fsnotify.Event, recursive bool, emit func(name string, typ pb.EventType) error) error {
	name, ok := w.name(ev)
	if !ok {
		return nil
	}
	if recursive && ev.Op.Has(fsnotify.Create) {
		if err := w.addTree(path.Join(w.root, name)); err != nil {
			return err
		}
	}
	for _, k := range eventKinds {
		if ev.Op.Has(k.op) {
			if err := emit(name, k.typ); err != nil {
				return err
			}
		}
	}
	return nil
}

// sandboxPoll is how often a watch looks whether its sandbox was killed.
const sandboxPoll = 200 * time.Millisecond

// maxWatchDirs bounds the directories one recursive watch takes.
const maxWatchDirs = 8192

// eventKinds are fsnotify's kinds as envd types them, in the order envd
// sends the kinds of one event.
var eventKinds = []struct {
	op  fsnotify.Op
	typ pb.EventType
}{
	{fsnotify.Create, pb.EventType_EVENT_TYPE_CREATE},
	{fsnotify.Rename, pb.EventType_EVENT_TYPE_RENAME},
	{fsnotify.Chmod, pb.EventType_EVENT_TYPE_CHMOD},
	{fsnotify.Write, pb.EventType_EVENT_TYPE_WRITE},
	{fsnotify.Remove, pb.EventType_EVENT_TYPE_REMOVE},
}

// watch is one WatchDir's inotify watches: the directory, and with a
// recursive watch every directory below it. Each directory is opened
// through the view as the request's user (the user's right to read it, and
// no link out of the sandbox however the path changes meanwhile) and
// watched, on Linux, through its descriptor, /proc/self/fd/N, which names
// that very directory: inotify would otherwise walk the path again, with
// rights the user may not have (the emulator's state is private) and links
// a sandbox process may have swapped in. The descriptors stay open while
// the watch lasts, so that no name is used twice. Elsewhere (kqueue opens
// each entry by its path) the directory is watched by its path; there the
// emulator does not isolate sandboxes.
type watch struct {
	s    *Server
	fsw  *fsnotify.Watcher
	root string              // the watched directory, as a sandbox path
	dirs map[string]string   // a watched descriptor's path -> the sandbox's path
	keys map[string]string   // the sandbox's path -> the descriptor's path
	open map[string]*os.File // the descriptor's path -> the directory
}

// newWatch checks that l is a directory and watches it (and, recursive,
// the directories below it).
func (s *Server) newWatch(l located, recursive bool) (*watch, error) {
	st, err := s.view.lstat(l.path)
	if err != nil {
		// envd words it as os.Stat does.
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = &fs.PathError{Op: "stat", Path: l.path, Err: pe.Err}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("path %s not found: %w", l.path, err))
		}
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("error statting path %s: %w", l.path, err))
	}
	if !st.IsDir() {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path %s not a directory", l.path))
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("error creating watcher: %w", err))
	}
	w := &watch{s: s, fsw: fsw, root: l.path, dirs: map[string]string{}, keys: map[string]string{}, open: map[string]*os.File{}}
	if err := w.add(l.path); err != nil {
		w.close()
		return nil, err
	}
	if recursive {
		if err := w.below(l.path); err != nil {
			w.close()
			return nil, err
		}
	}
	return w, nil
}

func (w *watch) close() {
	_ = w.fsw.Close()
	for _, f := range w.open {
		_ = f.Close()
	}
}

// add watches the sandbox directory p.
func (w *watch) add(p string) error {
	if _, ok := w.keys[p]; ok {
		return nil
	}
	if len(w.dirs) >= maxWatchDirs {
		return connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("more than %d directories to watch under %s", maxWatchDirs, w.root))
	}
	h, m := w.s.view.host(p)
	var f *os.File
	err := w.s.asUser(func() error {
		var err error
		f, err = w.s.view.open(located{path: p, host: h, asked: p, m: m}, os.O_RDONLY|syscall.O_DIRECTORY, 0)
		return err
	})
	if err != nil {
		return connect.NewError(connect.CodeInternal, fmt.Errorf("error adding path %s to watcher: %w", p, renamed(err, p)))
	}
	key := watchPath(f, h)
	if err := w.fsw.Add(key); err != nil {
		_ = f.Close()
		return connect.NewError(connect.CodeInternal, fmt.Errorf("error adding path %s to watcher: %w", p, renamed(err, p)))
	}
	w.dirs[key], w.keys[p], w.open[key] = p, key, f
	return nil
}

// addTree watches p, when it is a directory (not a link to one), and the
// directories below it.
func (w *watch) addTree(p string) error {
	st, err := w.s.view.lstat(p)
	if err != nil || !st.IsDir() {
		return nil // gone again, or no directory
	}
	if h, m := w.s.view.host(p); m.target == "/" && w.s.view.hidden(h) {
		return nil
	}
	if err := w.add(p); err != nil {
		return err
	}
	return w.below(p)
}

// below watches the directories under the sandbox directory p, through
// the view: links are not followed, hidden directories are empty.
func (w *watch) below(p string) error {
	var entries []fs.DirEntry
	if err := w.s.asUser(func() error {
		var err error
		entries, err = w.s.view.readDir(p)
		return err
	}); err != nil {
		return nil // unreadable, or gone: nothing below to watch
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if err := w.addTree(path.Join(p, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// name is the sandbox's name of an event's entry relative to the watched
// directory; false for an event of nothing the sandbox sees.
func (w *watch) name(ev fsnotify.Event) (string, bool) {
	var p string
	if d, ok := w.dirs[ev.Name]; ok {
		p = d // a watched directory itself
	} else if d, ok := w.dirs[filepath.Dir(ev.Name)]; ok {
		p = path.Join(d, filepath.Base(ev.Name))
	} else {
		return "", false
	}
	if h, m := w.s.view.host(p); m.target == "/" && w.s.view.hidden(h) && !w.s.view.hiddenRoot(h) {
		return "", false
	}
	if p != w.root && (ev.Op.Has(fsnotify.Remove) || ev.Op.Has(fsnotify.Rename)) {
		w.forget(p)
	}
	rel, err := filepath.Rel(w.root, p)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// forget drops the watches of the sandbox directory p and those below it,
// which is gone from where it was.
func (w *watch) forget(p string) {
	for key, d := range w.dirs {
		if d == w.root || !within(d, p) {
			continue
		}
		_ = w.fsw.Remove(key) // inotify may have dropped it already
		_ = w.open[key].Close()
		delete(w.dirs, key)
		delete(w.keys, d)
		delete(w.open, key)
	}
}

// isClosed reports whether the sandbox was killed (Close).
func (s *Server) isClosed() bool {
	s.boxMu.Lock()
	defer s.boxMu.Unlock()
	return s.closed
}
