package envd

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Callers tell envd's answers apart in envd's words, through the errors
// abx makes of them (AsError, a path's plain line), without Connect.
func TestAnswersInEnvdsWords(t *testing.T) {
	t.Parallel()
	wire := func(c connect.Code, msg string) error { return connect.NewWireError(c, errors.New(msg)) }
	cases := []struct {
		name                     string
		err                      error
		notFound, exists, denied bool
	}{
		{"no such process", AsError(wire(connect.CodeNotFound, "process with pid 7 not found")), true, false, false},
		{"no such path", pathErr(wire(connect.CodeNotFound, "file not found: lstat /x: no such file or directory"), "/x"), true, false, false},
		// Not envd's answer: abx's own, made before anything was sent.
		{"not found by abx", connect.NewError(connect.CodeNotFound, errors.New("x")), false, false, false},
		{"exists", pathErr(wire(connect.CodeAlreadyExists, "directory /d already exists"), "/d"), false, true, false},
		{"token refused", AsError(wire(connect.CodeUnauthenticated, "invalid access token")), false, false, true},
		{"forbidden", wire(connect.CodePermissionDenied, "HTTP status 403 Forbidden"), false, false, true},
		{"unavailable", AsError(wire(connect.CodeUnavailable, "upstream connect error")), false, false, false},
		{"not envd's", abxerr.New(abxerr.NotFound, "no sandbox x"), false, false, false},
		{"nil", nil, false, false, false},
	}
	for _, tc := range cases {
		if got := IsNotFound(tc.err); got != tc.notFound {
			t.Errorf("%s: IsNotFound = %v", tc.name, got)
		}
		if got := IsAlreadyExists(tc.err); got != tc.exists {
			t.Errorf("%s: IsAlreadyExists = %v", tc.name, got)
		}
		if got := IsDenied(tc.err); got != tc.denied {
			t.Errorf("%s: IsDenied = %v", tc.name, got)
		}
	}
}

// What cut a stream is said in words, not in Connect's.
func TestCutReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("stream: %w", ErrNoEnd), "the stream ended before the process did"},
		{connect.NewError(connect.CodeInternal, fmt.Errorf("protocol error: %w", io.ErrUnexpectedEOF)), "the connection closed in the middle of it"},
		{connect.NewError(connect.CodeUnavailable, fmt.Errorf("read: %w", syscall.ECONNRESET)), "the connection was reset"},
		{connect.NewError(connect.CodeInternal, errors.New("protocol error: incomplete envelope: read tcp: use of closed network connection")), "read tcp: use of closed network connection"},
		{connect.NewError(connect.CodeUnknown, nil), "unknown"},
		{abxerr.New(abxerr.Network, "the stream was idle for 60s"), "the stream was idle for 60s"},
	} {
		if got := CutReason(tc.err); got != tc.want {
			t.Errorf("CutReason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
