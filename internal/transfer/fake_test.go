package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// fakeRemote is a sandbox's file service in memory, answering as envd
// does: files by path, the directories made (and those that hold a file
// or a directory), and whatever Stat and ListDir are told to answer (a
// hostile sandbox's answers among them). "." and "/" are directories.
type fakeRemote struct {
	mu      sync.Mutex
	files   map[string]string
	dirs    []string
	stat    map[string]envd.Entry
	listing map[string][]envd.Entry
	// failRead makes Read of this path fail after writing half a file.
	failRead string
	// modes are the bits chmod gave paths (the rest report none), and
	// chmods the calls of it, in order: "DIR: MODE PATH...".
	modes  map[string]fs.FileMode
	chmods []string
	// moveMode, when set, is the mode Move reports, as an envd with
	// another umask would.
	moveMode fs.FileMode
}

func newFakeRemote() *fakeRemote {
	return &fakeRemote{files: map[string]string{}, stat: map[string]envd.Entry{}, listing: map[string][]envd.Entry{},
		modes: map[string]fs.FileMode{}}
}

// chmod is the Copier's Modes: it notes the call and gives the modes.
func (r *fakeRemote) chmod(_ context.Context, dir string, modes []envd.PathMode) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	call := dir + ":"
	for _, m := range modes {
		call += fmt.Sprintf(" %o %s", m.Mode, m.Path)
		r.modes[path.Join(dir, m.Path)] = m.Mode
	}
	r.chmods = append(r.chmods, call)
	return nil
}

// withMode adds the mode chmod gave p to e, as envd reports it. The lock
// is held.
func (r *fakeRemote) withMode(e envd.Entry) envd.Entry {
	if m, ok := r.modes[e.Path]; ok {
		e.Mode, e.Permissions = uint32(m), m.String()
	}
	return e
}

func notFound(p string) error { return abxerr.New(abxerr.NotFound, "%s: no such file", p) }

// isDir tells a directory: made, or holding something. The lock is held.
func (r *fakeRemote) isDir(p string) bool {
	if p == "." || p == "/" {
		return true
	}
	for _, d := range r.dirs {
		if d == p || strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	for f := range r.files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

func (r *fakeRemote) Stat(_ context.Context, p string) (envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p = path.Clean(p) // DIR/. is DIR
	if e, ok := r.stat[p]; ok {
		return e, nil
	}
	if body, ok := r.files[p]; ok {
		return r.withMode(envd.Entry{Name: path.Base(p), Path: p, Type: "file", Size: int64(len(body))}), nil
	}
	if r.isDir(p) {
		return r.withMode(envd.Entry{Name: path.Base(p), Path: p, Type: "dir"}), nil
	}
	return envd.Entry{}, notFound(p)
}

// ListDir answers what it was told to for p, or else everything below the
// directory p.
func (r *fakeRemote) ListDir(_ context.Context, p string, _ int) ([]envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p = path.Clean(p)
	if list, ok := r.listing[p]; ok {
		return list, nil
	}
	if !r.isDir(p) {
		return nil, notFound(p)
	}
	list := []envd.Entry{}
	for _, d := range r.dirs {
		if strings.HasPrefix(d, p+"/") {
			list = append(list, envd.Entry{Name: path.Base(d), Path: d, Type: "dir"})
		}
	}
	for f := range r.files {
		if strings.HasPrefix(f, p+"/") {
			list = append(list, envd.Entry{Name: path.Base(f), Path: f, Type: "file"})
		}
	}
	return list, nil
}

func (r *fakeRemote) Read(_ context.Context, p string, w io.Writer) (int64, error) {
	r.mu.Lock()
	body, ok := r.files[p]
	fail := p == r.failRead
	r.mu.Unlock()
	if !ok {
		return 0, notFound(p)
	}
	if fail {
		n, _ := io.WriteString(w, body[:len(body)/2])
		return int64(n), abxerr.New(abxerr.Network, "the connection to the service broke")
	}
	n, err := io.WriteString(w, body)
	return int64(n), err
}

// Write keeps what it read even when the reading fails, as envd leaves
// the part of a file that arrived; it makes the file's parents.
func (r *fakeRemote) Write(_ context.Context, p string, in io.Reader) error {
	body, err := io.ReadAll(in)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mkdirAll(path.Dir(p))
	r.files[p] = string(body)
	return err
}

// mkdirAll makes dir and its missing parents, parents first. The lock is
// held.
func (r *fakeRemote) mkdirAll(dir string) {
	if r.isDir(dir) {
		return
	}
	r.mkdirAll(path.Dir(dir))
	r.dirs = append(r.dirs, dir)
}

// MakeDir makes p and its parents, as envd's does: an existing directory
// is already_exists, a file invalid_argument.
func (r *fakeRemote) MakeDir(_ context.Context, p string) (envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.files[p]; ok {
		return envd.Entry{}, &abxerr.Error{Code: abxerr.Rejected, Message: "path already exists but it is not a directory: " + p,
			Cause: connect.NewError(connect.CodeInvalidArgument, errors.New("not a directory"))}
	}
	if r.isDir(p) {
		return envd.Entry{}, &abxerr.Error{Code: abxerr.Rejected, Message: "directory already exists: " + p,
			Cause: connect.NewError(connect.CodeAlreadyExists, errors.New("already exists"))}
	}
	r.mkdirAll(p)
	return envd.Entry{Name: path.Base(p), Path: p, Type: "dir"}, nil
}

func (r *fakeRemote) Move(_ context.Context, src, dst string) (envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	body, ok := r.files[src]
	if !ok {
		return envd.Entry{}, notFound(src)
	}
	if r.isDir(dst) {
		return envd.Entry{}, abxerr.New(abxerr.Rejected, "cannot move %s to %s: file exists", src, dst)
	}
	delete(r.files, src)
	r.files[dst] = body
	delete(r.modes, dst)
	if m, ok := r.modes[src]; ok {
		r.modes[dst] = m
		delete(r.modes, src)
	}
	e := r.withMode(envd.Entry{Name: path.Base(dst), Path: dst, Type: "file", Size: int64(len(body))})
	if r.moveMode != 0 {
		e.Mode, e.Permissions = uint32(r.moveMode), r.moveMode.String()
		r.modes[dst] = r.moveMode
	}
	return e, nil
}

// Remove removes p and everything below it.
func (r *fakeRemote) Remove(_ context.Context, p string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for f := range r.files {
		if f == p || strings.HasPrefix(f, p+"/") {
			delete(r.files, f)
		}
	}
	kept := r.dirs[:0]
	for _, d := range r.dirs {
		if d != p && !strings.HasPrefix(d, p+"/") {
			kept = append(kept, d)
		}
	}
	r.dirs = kept
	return nil
}

// skippedPaths are the paths a copy left out, in order.
func skippedPaths(res Result) []string {
	var out []string
	for _, s := range res.Skipped {
		out = append(out, s.Path)
	}
	return out
}

// paths lists the files the fake holds, in order.
func (r *fakeRemote) paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for p := range r.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// fakeMeter counts what passes through it and whether it was closed.
type fakeMeter struct {
	mu    sync.Mutex
	label string
	total int64
	bytes int64
	done  bool
}

func (m *fakeMeter) add(n int) { m.mu.Lock(); m.bytes += int64(n); m.mu.Unlock() }

func (m *fakeMeter) Writer(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) { n, err := w.Write(b); m.add(n); return n, err })
}

func (m *fakeMeter) Reader(r io.Reader) io.Reader {
	return readerFunc(func(b []byte) (int, error) { n, err := r.Read(b); m.add(n); return n, err })
}

func (m *fakeMeter) Done() { m.mu.Lock(); m.done = true; m.mu.Unlock() }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

// meters hands out fakeMeters and keeps them for the test to look at.
type meters struct {
	mu   sync.Mutex
	list []*fakeMeter
}

func (ms *meters) new(label string, total int64) Meter {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	m := &fakeMeter{label: label, total: total}
	ms.list = append(ms.list, m)
	return m
}

// codeOf is an error's abx code, "" for nil.
func codeOf(t *testing.T, err error) abxerr.Code {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *abxerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *abxerr.Error", err, err)
	}
	return e.Code
}
