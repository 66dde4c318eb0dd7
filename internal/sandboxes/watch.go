package sandboxes

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Watching is a watch of a directory (files.watch): what it watches, and
// what ends it besides its context.
type Watching struct {
	Dir       string
	Recursive bool
	// Timeout, when given, ends the watch with E6001 unless Count changes
	// came first: a limit, within the input's bounds (0 is no limit, and
	// none is leaving it out).
	Timeout *time.Duration
	// Count ends the watch, with success, after that many changes; 0 for
	// none.
	Count int
	// Started, when set, is called once the watch is in place.
	Started func()
	// Resumed hears of a watch taken up again after its stream was cut:
	// changes in the gap may be missing (envd.Client.Follow).
	Resumed func(envd.Resume) error
}

// errEnough ends a watch once Count changes came.
var errEnough = errors.New("enough changes")

// errTimedOut is the cause of a watch's end when its Timeout passed.
var errTimedOut = errors.New("the watch's time limit passed")

// Watch hands each change of w.Dir to on as it happens, and takes the
// watch up again when its stream is cut while the sandbox runs on. It
// returns nil once w.Count changes came, E6001 once w.Timeout passed, and
// on's error, the watch's failure, or what ended ctx (a door takes the
// end of its context as it sees fit: Ctrl-C is the command line's normal
// end of a watch).
func (s *Service) Watch(ctx context.Context, id, user string, w Watching, on func(envd.FileEvent) error) error {
	op := Op("files.watch")
	if _, err := s.on(ctx, op, id); err != nil {
		return err
	}
	if w.Timeout != nil {
		in := withRequired(*op.Input("timeout")) // given, it is a limit
		if err := in.CheckSeconds(ctx, *w.Timeout); err != nil {
			if *w.Timeout == 0 {
				return abxerr.From(err).WithHint("0 is no time: leave %s out for no limit", in.name(ctx))
			}
			return err
		}
	}
	if err := op.Input("count").CheckNumber(ctx, int64(w.Count)); err != nil {
		return err
	}
	c, err := s.files(ctx, op, id, user, w.Dir)
	if err != nil {
		return err
	}
	// Not a deadline: Connect would send it to envd as the watch's own.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if w.Timeout != nil {
		t := time.AfterFunc(*w.Timeout, func() { cancel(errTimedOut) })
		defer t.Stop()
	}
	resumed := w.Resumed
	if resumed == nil {
		resumed = func(envd.Resume) error { return nil }
	}
	seen := 0
	err = c.Follow(ctx, envd.WatchSpec{Dir: w.Dir, Recursive: w.Recursive, Started: w.Started}, func(ev envd.FileEvent) error {
		if err := on(ev); err != nil {
			return err
		}
		seen++
		if w.Count > 0 && seen >= w.Count {
			return errEnough
		}
		return nil
	}, resumed)
	switch {
	case errors.Is(err, errEnough):
		return nil
	case errors.Is(context.Cause(ctx), errTimedOut):
		return watchTimedOut(ctx, op, w, seen)
	}
	return err
}

// watchTimedOut is the error of a watch whose Timeout passed after seen
// changes, naming its inputs as the caller does.
func watchTimedOut(ctx context.Context, op *Operation, w Watching, seen int) error {
	timeout, count := op.Input("timeout").name(ctx), op.Input("count").name(ctx)
	if w.Count > 0 {
		return abxerr.New(abxerr.Timeout, "%s %s passed after %d of %d events", timeout, *w.Timeout, seen, w.Count).
			WithHint("raise %s, or check that something changes %s", timeout, w.Dir)
	}
	events := strconv.Itoa(seen) + " events"
	if seen == 1 {
		events = "1 event"
	}
	return abxerr.New(abxerr.Timeout, "%s %s passed (%s)", timeout, *w.Timeout, events).
		WithHint("use %s N to stop, with success, after N events", count)
}
