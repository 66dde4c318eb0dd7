package process

import (
	"context"
	"errors"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// lookWait bounds the one read of the sandbox that says why a command
// ended as it did.
const lookWait = 5 * time.Second

// sandboxEnded says why a command that abx followed ended by SIGKILL, or
// lost its stream to a sandbox that stopped answering: when the sandbox
// itself is gone (killed, or its timeout passed) or paused, that is the
// reason, and a bare 137 or 502 would hide it. It reads the sandbox once,
// only in those cases; a read that fails changes nothing.
//
// For a command that ended, it returns the note to print (empty when the
// sandbox still runs); for a stream that was lost, the error to report
// instead.
func sandboxEnded(ctx context.Context, svc *sandboxes.Service, id string, x *remoteproc.Exit, err error) (string, error) {
	killed := err == nil && x != nil && x.Code == abxerr.SignalStatus(9)
	lost := err != nil && (errors.Is(err, remoteproc.ErrCut) || errors.Is(envd.AsError(err), envd.ErrNotRunning))
	if !killed && !lost {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookWait)
	defer cancel()
	sb, gerr := svc.Get(ctx, id)
	switch {
	case gerr != nil && abxerr.From(gerr).Code == abxerr.NotFound && killed:
		return "abx: sandbox " + id + " ended while the command ran (killed, or its timeout passed), and the command with it", nil
	case gerr != nil && abxerr.From(gerr).Code == abxerr.NotFound:
		return "", abxerr.New(abxerr.NotFound, "sandbox %s ended while the command ran (killed, or its timeout passed): how the command ended is unknown", id).
			WithHint("'abx list' shows the sandboxes that exist")
	case gerr == nil && sb.State == provider.StatePaused && lost:
		e := provider.PausedError(id)
		e.Message = "sandbox " + id + " was paused while the command ran: its stream stopped, and how the command ends is unknown until it is resumed"
		return "", e
	}
	return "", err
}
