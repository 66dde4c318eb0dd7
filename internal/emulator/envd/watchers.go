//go:build unix

package envd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
)

// The polling watcher, as envd 0.2.10 serves it (docs/protocol.md,
// "Polling watchers"): CreateWatcher starts watching a directory and
// names the watch; GetWatcherEvents hands over the changes since the last
// call, and RemoveWatcher ends it. The synchronous SDKs watch only this
// way. A watch lives until it is removed or its sandbox goes. Unlike envd,
// which keeps every change until it is asked, the emulator keeps
// maxPolledEvents and then fails the watch (resource_exhausted), and a
// sandbox has maxWatchers at once.

const (
	maxPolledEvents = 1 << 16
	maxWatchers     = 256
)

// polled is one polling watch: its changes since the last poll, or the
// failure that ended it.
type polled struct {
	w         *watch
	recursive bool
	done      chan struct{}
	once      sync.Once

	mu     sync.Mutex
	events []*pb.FilesystemEvent
	err    error
}

// watchers are a sandbox's polling watches, by ID; closed once the
// sandbox is gone.
type watchers struct {
	mu     sync.Mutex
	byID   map[string]*polled
	closed bool
}

func (h *filesystemService) CreateWatcher(_ context.Context, req *connect.Request[pb.CreateWatcherRequest]) (*connect.Response[pb.CreateWatcherResponse], error) {
	if err := h.s.needUser(req.Header()); err != nil {
		return nil, err
	}
	l, err := h.locate(req.Header(), req.Msg.GetPath(), true)
	if err != nil {
		return nil, err
	}
	recursive := req.Msg.GetRecursive() && h.s.version.AtLeast(envd.RecursiveWatch)
	w, err := h.s.newWatch(l, recursive)
	if err != nil {
		return nil, err
	}
	p := &polled{w: w, recursive: recursive, done: make(chan struct{})}
	id, err := h.s.watchers.add(p)
	if err != nil {
		w.close()
		return nil, err
	}
	go p.run()
	return connect.NewResponse(&pb.CreateWatcherResponse{WatcherId: id}), nil
}

func (h *filesystemService) GetWatcherEvents(_ context.Context, req *connect.Request[pb.GetWatcherEventsRequest]) (*connect.Response[pb.GetWatcherEventsResponse], error) {
	p, err := h.s.watchers.get(req.Msg.GetWatcherId())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	events := p.events
	p.events = nil
	if events == nil {
		events = []*pb.FilesystemEvent{}
	}
	return connect.NewResponse(&pb.GetWatcherEventsResponse{Events: events}), nil
}

func (h *filesystemService) RemoveWatcher(_ context.Context, req *connect.Request[pb.RemoveWatcherRequest]) (*connect.Response[pb.RemoveWatcherResponse], error) {
	ws := &h.s.watchers
	id := req.Msg.GetWatcherId()
	ws.mu.Lock()
	p, ok := ws.byID[id]
	delete(ws.byID, id)
	ws.mu.Unlock()
	if !ok {
		return nil, notWatching(id)
	}
	p.stop()
	return connect.NewResponse(&pb.RemoveWatcherResponse{}), nil
}

func (ws *watchers) get(id string) (*polled, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	p, ok := ws.byID[id]
	if !ok {
		return nil, notWatching(id)
	}
	return p, nil
}

// add keeps p under a new ID, unless the sandbox has maxWatchers already
// or is gone: the check and the keeping are one step, so that neither
// creates at once nor the sandbox's end lets a watch slip past (and hold
// its descriptors for ever).
func (ws *watchers) add(p *polled) (string, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	switch {
	case ws.closed:
		return "", connect.NewError(connect.CodeUnavailable, errors.New("the sandbox is gone"))
	case len(ws.byID) >= maxWatchers:
		return "", connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("more than %d watchers in this sandbox: remove some", maxWatchers))
	}
	if ws.byID == nil {
		ws.byID = map[string]*polled{}
	}
	id := "w" + randomID()
	ws.byID[id] = p
	return id, nil
}

// closeAll ends every watch: the sandbox is gone.
func (ws *watchers) closeAll() {
	ws.mu.Lock()
	all := ws.byID
	ws.byID, ws.closed = nil, true
	ws.mu.Unlock()
	for _, p := range all {
		p.stop()
	}
}

func notWatching(id string) error {
	return connect.NewError(connect.CodeNotFound, fmt.Errorf("watcher with id %s not found", id))
}

// run keeps the watch's changes until it is stopped, or fails.
func (p *polled) run() {
	defer p.w.close()
	for {
		select {
		case <-p.done:
			return
		case err, ok := <-p.w.fsw.Errors:
			if !ok {
				err = errors.New("watcher error channel closed")
			}
			p.fail(connect.NewError(connect.CodeInternal, fmt.Errorf("watcher error: %w", err)))
			return
		case ev, ok := <-p.w.fsw.Events:
			if !ok {
				p.fail(connect.NewError(connect.CodeInternal, errors.New("watcher event channel closed")))
				return
			}
			if err := p.w.told(ev, p.recursive, p.keep); err != nil {
				p.fail(err)
				return
			}
		}
	}
}

// keep holds a change until the next poll.
func (p *polled) keep(name string, typ pb.EventType) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.events) >= maxPolledEvents {
		return connect.NewError(connect.CodeResourceExhausted,
			fmt.Errorf("more than %d changes since the last GetWatcherEvents: poll more often", maxPolledEvents))
	}
	p.events = append(p.events, &pb.FilesystemEvent{Name: name, Type: typ})
	return nil
}

func (p *polled) fail(err error) {
	p.mu.Lock()
	p.err, p.events = err, nil
	p.mu.Unlock()
}

func (p *polled) stop() { p.once.Do(func() { close(p.done) }) }

// randomID is a watch's ID: envd's are random too.
func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
