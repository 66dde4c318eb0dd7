package envd

import (
	"errors"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
)

// AsError turns an envd failure into abx's error: Connect codes map to the
// documented codes, with envd's own message.
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
	msg := ce.Message()
	out := &abxerr.Error{Message: msg, Cause: err}
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
	return out
}
