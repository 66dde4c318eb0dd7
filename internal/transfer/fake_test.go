package transfer

import (
	"context"
	"errors"
	"io"
	"path"
	"sort"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// fakeRemote is a sandbox's file service in memory: files by path, the
// directories made, and whatever Stat and ListDir are told to answer (a
// hostile sandbox's answers among them).
type fakeRemote struct {
	mu      sync.Mutex
	files   map[string]string
	dirs    []string
	stat    map[string]envd.Entry
	listing map[string][]envd.Entry
	// failRead makes Read of this path fail after writing half a file.
	failRead string
}

func newFakeRemote() *fakeRemote {
	return &fakeRemote{files: map[string]string{}, stat: map[string]envd.Entry{}, listing: map[string][]envd.Entry{}}
}

func notFound(p string) error { return abxerr.New(abxerr.NotFound, "%s: no such file", p) }

func (r *fakeRemote) Stat(_ context.Context, p string) (envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.stat[p]; ok {
		return e, nil
	}
	if body, ok := r.files[p]; ok {
		return envd.Entry{Name: path.Base(p), Path: p, Type: "file", Size: int64(len(body))}, nil
	}
	return envd.Entry{}, notFound(p)
}

func (r *fakeRemote) ListDir(_ context.Context, p string, _ int) ([]envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list, ok := r.listing[p]
	if !ok {
		return nil, notFound(p)
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
// the part of a file that arrived.
func (r *fakeRemote) Write(_ context.Context, p string, in io.Reader) error {
	body, err := io.ReadAll(in)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[p] = string(body)
	return err
}

func (r *fakeRemote) MakeDir(_ context.Context, p string) (envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.dirs {
		if d == p {
			return envd.Entry{}, abxerr.New(abxerr.Rejected, "directory already exists: %s", p)
		}
	}
	r.dirs = append(r.dirs, p)
	return envd.Entry{Name: path.Base(p), Path: p, Type: "dir"}, nil
}

func (r *fakeRemote) Move(_ context.Context, src, dst string) (envd.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	body, ok := r.files[src]
	if !ok {
		return envd.Entry{}, notFound(src)
	}
	delete(r.files, src)
	r.files[dst] = body
	return envd.Entry{Name: path.Base(dst), Path: dst, Type: "file", Size: int64(len(body))}, nil
}

func (r *fakeRemote) Remove(_ context.Context, p string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.files, p)
	return nil
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
