package envd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Failures of envd that callers tell apart with errors.Is on AsError's
// result. envd says them only in words; AsError recognises the words.
var (
	// ErrNoStdin: SendInput to a process whose stdin is not open, because
	// it was started without one or it was closed ("stdin not enabled or
	// closed").
	ErrNoStdin = errors.New("the process's stdin is not open")
	// ErrCommandNotFound: Start of a program envd cannot find ("exec:
	// "x": executable file not found in $PATH"). A newer envd runs
	// commands through /bin/sh, where a missing one exits 127 instead.
	ErrCommandNotFound = errors.New("command not found")
	// ErrNotRunning: the gateway in front of the sandbox answered 502, as
	// it does for a sandbox that is paused or gone (docs/protocol.md, "A
	// sandbox that is not running"). Connect keeps only the status of such
	// an answer, not the gateway's words.
	ErrNotRunning = errors.New("the sandbox is not running (paused or gone)")
	// ErrNoTTY: terminal input to, or a resize of, a process started
	// without a terminal ("tty not assigned to process"): a plain process
	// has pipes, and envd refuses terminal calls for it.
	ErrNoTTY = errors.New("the process has no terminal")
)

// sentinels are envd's words for the errors above.
var sentinels = []struct {
	words string
	err   error
}{
	{"stdin not enabled", ErrNoStdin},
	{"executable file not found", ErrCommandNotFound},
	{"502 Bad Gateway", ErrNotRunning},
	{"tty not assigned", ErrNoTTY},
}

// AsError turns an envd failure into abx's error: Connect codes map to the
// documented codes, with envd's own message. A failure envd words as one of
// the sentinels (ErrNoStdin, ErrCommandNotFound) has it in its Cause chain,
// for errors.Is; its code is still the Connect code's.
func AsError(err error) error {
	if err == nil {
		return nil
	}
	var e *abxerr.Error
	if errors.As(err, &e) {
		return e
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return abxerr.From(err)
	}
	// Connect also says "canceled" for a connection that broke (a reset
	// stream): only abx's own cancellation, Ctrl-C, is an interruption.
	if ce.Code() == connect.CodeCanceled && !errors.Is(err, context.Canceled) {
		if broke := abxerr.From(ce.Unwrap()); broke != nil && broke.Code == abxerr.Network {
			return broke
		}
		return &abxerr.Error{Code: abxerr.Network, Cause: err,
			Message: "the connection to the sandbox broke: " + abxerr.Cut(ce.Message()),
			Hint:    "check your network and HTTPS_PROXY/NO_PROXY, then try again"}
	}
	msg := ce.Message()
	if ce.Code() == connect.CodeResourceExhausted && strings.Contains(msg, "larger than configured max") {
		return &abxerr.Error{Code: abxerr.BadResponse, Cause: err,
			Message: fmt.Sprintf("the sandbox sent a message larger than %d MiB; abx reads no more of it", MaxMessage>>20),
			Hint:    "list a smaller directory, or have the command write less per line"}
	}
	out := &abxerr.Error{Message: abxerr.Cut(msg), Cause: err}
	for _, s := range sentinels {
		if strings.Contains(msg, s.words) {
			out.Cause = fmt.Errorf("%w: %w", s.err, err)
			break
		}
	}
	switch ce.Code() {
	case connect.CodeNotFound:
		out.Code = abxerr.NotFound
	case connect.CodeUnauthenticated:
		// An unknown user, or a token the sandbox refused (a plain 401).
		out.Code = abxerr.Unauthorized
		out.Hint = "check --user; if the sandbox was recreated, its access token changed"
	case connect.CodePermissionDenied:
		out.Code = abxerr.Forbidden
	case connect.CodeDeadlineExceeded:
		out.Code = abxerr.Timeout
	case connect.CodeCanceled:
		out.Code = abxerr.Interrupted
	case connect.CodeUnavailable:
		out.Code = abxerr.Network
	case connect.CodeInvalidArgument, connect.CodeAlreadyExists, connect.CodeFailedPrecondition,
		connect.CodeUnimplemented, connect.CodeOutOfRange:
		out.Code = abxerr.Rejected
	default:
		out.Code = abxerr.Server
	}
	if out.Message == "" {
		out.Message = ce.Code().String()
	}
	switch ce.Code() {
	case connect.CodeUnauthenticated, connect.CodeDeadlineExceeded, connect.CodeCanceled, connect.CodeUnavailable:
	default:
		// A status of the gateway's (a 403) has only its own words.
		if !strings.HasPrefix(msg, "HTTP status ") {
			denied(out, msg)
		}
	}
	return out
}

// IsCut reports whether err, from a stream of a process's events that had
// begun, is the stream breaking under abx rather than an answer: the
// connection closed or was reset in the middle (a proxy's route timeout, a
// network that dropped it), or the stream ended without the process's end
// (ErrNoEnd). The process may well run on. Not a cut: an error envd sent
// (it ended the stream on purpose), an HTTP status (the gateway's 502, a
// refused token), abx's own cancellation or deadline, the idle bound, a
// message over the size cap, and any failure of the caller's own.
func IsCut(err error) bool {
	if errors.Is(err, ErrNoEnd) {
		return true
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var own *abxerr.Error // the idle bound, a refused redirect: abx's verdicts
	if errors.As(err, &own) {
		return false
	}
	var ce *connect.Error
	if !errors.As(err, &ce) || connect.IsWireError(err) || strings.HasPrefix(ce.Message(), "HTTP status ") {
		return false
	}
	switch ce.Code() {
	case connect.CodeInternal, connect.CodeUnknown, connect.CodeUnavailable, connect.CodeCanceled:
		return true
	}
	return false
}

// CutReason says in words what cut a stream IsCut calls cut, rather than
// Connect's "protocol error: incomplete envelope".
func CutReason(err error) string {
	switch {
	case errors.Is(err, ErrNoEnd):
		return "the stream ended before the process did"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed in the middle of it"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "the connection was reset"
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		if msg := strings.TrimPrefix(ce.Message(), "protocol error: incomplete envelope: "); msg != "" {
			return msg
		}
		return ce.Code().String()
	}
	return abxerr.From(err).Message
}

// The answers below are told apart by what a caller does next, in envd's
// words rather than Connect's codes, so that only this package speaks
// Connect.

// IsNotFound reports whether envd itself answered that what the call
// named (a process, a path) is not there: an answer of envd's, not a
// status of the gateway in front of it nor a failure on the way.
func IsNotFound(err error) bool {
	return connect.IsWireError(err) && connect.CodeOf(err) == connect.CodeNotFound
}

// IsAlreadyExists reports whether envd refused to make what is already
// there: MakeDir of a directory that exists.
func IsAlreadyExists(err error) bool {
	return connect.CodeOf(err) == connect.CodeAlreadyExists
}

// IsDenied reports whether the call was refused for who made it: a token
// the sandbox does not take (401), or a caller it does not let in (403).
// Asking again as the same caller gets the same answer.
func IsDenied(err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnauthenticated, connect.CodePermissionDenied:
		return true
	}
	return false
}

// definite tells the Connect codes of an answer that the same call would
// get again: a refusal of what was asked (a missing process or path, a bad
// argument, a state that does not allow it, a call envd lacks) or of who
// asked.
func definite(c connect.Code) bool {
	switch c {
	case connect.CodeUnauthenticated, connect.CodePermissionDenied, connect.CodeNotFound, connect.CodeUnimplemented,
		connect.CodeInvalidArgument, connect.CodeFailedPrecondition, connect.CodeOutOfRange, connect.CodeAlreadyExists:
		return true
	}
	return false
}

// MayPass reports whether a failed call may pass when made again: no
// answer came from envd itself (the connection failed, a proxy answered a
// 5xx of its own), or envd said it was unavailable, out of time, out of
// room or aborted. Any other answer of envd's (internal, a definite
// refusal; a refused token) gets the same answer again, as the 500 to
// input for a process without a terminal does.
func MayPass(err error) bool {
	switch c := connect.CodeOf(err); {
	case c == connect.CodeUnavailable, c == connect.CodeDeadlineExceeded, c == connect.CodeResourceExhausted, c == connect.CodeAborted:
		return true
	case definite(c):
		return false
	}
	return !connect.IsWireError(err)
}
