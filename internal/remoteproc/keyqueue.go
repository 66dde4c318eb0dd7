package remoteproc

import (
	"context"
	"sync"
)

// keysPending bounds the keys read and not yet sent: past it abx reads
// no more until the sandbox has taken some, and the local terminal holds
// the rest, as it does for any program that reads slowly. A key typed by
// hand never meets it; a long paste into a slow sandbox may.
const keysPending = 256 << 10

// keyQueue is the keys of a terminal session read and not yet sent, in
// order: the keyboard's reader puts them, the sender takes them, and
// neither waits on the other but for room, or for keys.
type keyQueue struct {
	mu      sync.Mutex
	pending []byte
	dropped bool          // the sandbox refused the keys: no more are kept
	more    chan struct{} // keys were put
	room    chan struct{} // keys were taken
}

func newKeyQueue() *keyQueue {
	return &keyQueue{more: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// put queues a copy of keys, once there is room for them (keys larger
// than the bound go in alone); false when ctx ended first.
func (q *keyQueue) put(ctx context.Context, keys []byte) bool {
	for {
		q.mu.Lock()
		if q.dropped {
			q.mu.Unlock()
			return true
		}
		if len(q.pending) == 0 || len(q.pending)+len(keys) <= keysPending {
			q.pending = append(q.pending, keys...)
			q.mu.Unlock()
			tell(q.more)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-ctx.Done():
			return false
		}
	}
}

// take waits for keys and moves the first of them, as many as buf holds,
// into buf; false when ctx ended first.
func (q *keyQueue) take(ctx context.Context, buf []byte) ([]byte, bool) {
	for {
		q.mu.Lock()
		if len(q.pending) > 0 {
			n := copy(buf, q.pending)
			q.pending = q.pending[:copy(q.pending, q.pending[n:])]
			q.mu.Unlock()
			tell(q.room)
			return buf[:n], true
		}
		q.mu.Unlock()
		select {
		case <-q.more:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// drop forgets the keys queued, and those put from now on.
func (q *keyQueue) drop() {
	q.mu.Lock()
	q.pending, q.dropped = nil, true
	q.mu.Unlock()
	tell(q.room)
}

// tell signals ch without waiting: one signal pending is enough.
func tell(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
