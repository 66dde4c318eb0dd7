package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressEvery is how often a long call tells the host it is
// still working: often enough for a host's spinner and its idle timers
// (some reset a request's timeout on progress), rarely enough to cost
// nothing.
const DefaultProgressEvery = time.Second

// heartbeat sends progress notifications while a call runs, when the host
// asked for them with a progress token: progress is the seconds passed,
// total the call's limit, and the message what status says (e.g. how much
// output came). It returns the function that stops it; without a token it
// does nothing.
func heartbeat(ctx context.Context, req *mcp.CallToolRequest, every, limit time.Duration, status func() string) (stop func()) {
	if req == nil || req.Session == nil || req.Params == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			passed := time.Since(start)
			msg := fmt.Sprintf("running for %s", passed.Round(time.Second))
			if status != nil {
				if s := status(); s != "" {
					msg += "; " + s
				}
			}
			// A host that went away fails the notification; the call
			// itself notices through its own context.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      passed.Seconds(),
				Total:         limit.Seconds(),
				Message:       msg,
			})
		}
	}()
	return func() { cancel(); <-done }
}
