package envd

import (
	"errors"
	"strings"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
)

// envd reports a failure of the operating system as Go words it, inside
// words of its own: "file not found: lstat /home/user/x: no such file or
// directory", "error creating file: open /etc/foo: permission denied".
// abx says such a failure in one plain line, the path as the caller gave
// it and the system's reason ("x: no such file or directory"), with the
// code the reason means (docs/files.md, "When the sandbox says no").

// reasons are the system's words abx recognises at the end of envd's
// messages, and the code each one means.
var reasons = []struct {
	words string
	code  abxerr.Code
}{
	{"no such file or directory", abxerr.NotFound},
	{"permission denied", abxerr.PermissionDenied},
	{"not a directory", abxerr.Rejected},
	{"is a directory", abxerr.Rejected},
	{"file exists", abxerr.Rejected},
	{"directory not empty", abxerr.Rejected},
	{"too many levels of symbolic links", abxerr.Rejected},
	{"file name too long", abxerr.Rejected},
	{"invalid cross-device link", abxerr.Rejected},
	{"read-only file system", abxerr.Rejected},
	{"operation not permitted", abxerr.Rejected},
	{"no space left on device", abxerr.Server},
	{"disk quota exceeded", abxerr.Server},
}

// deniedWords are the system's words for a path its user may not use.
const deniedWords = "permission denied"

// permissionHint says what to do about a path the sandbox refused its
// user; a door with a flag for the user adds it (files: --user root).
const permissionHint = "choose a path the sandbox's user may write (its home, /tmp), or act as root"

// PathError is the cause of an error envd gave about a path in the
// operating system's words; ReasonOf finds those words.
type PathError struct {
	Path   string // as the caller gave it
	Reason string // the system's words: "permission denied"
	Err    error  // envd's own error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Reason }

func (e *PathError) Unwrap() error { return e.Err }

// ReasonOf is the system's reason of a failure envd gave about a path
// ("no such file or directory"), when it gave one.
func ReasonOf(err error) (string, bool) {
	var pe *PathError
	if errors.As(err, &pe) {
		return pe.Reason, true
	}
	return "", false
}

// reasonIn finds the system's reason at the end of one of envd's
// messages, as Go puts it after an operation and a path.
func reasonIn(msg string) (string, abxerr.Code, bool) {
	for _, r := range reasons {
		if strings.HasSuffix(msg, ": "+r.words) {
			return r.words, r.code, true
		}
	}
	return "", "", false
}

// plain is how an error of envd about shown reads: "shown: reason". msg
// is envd's message; only the sandbox's answers (not the gateway's: a
// refused token, a 403, a sandbox that is not running) are rewritten.
// The status of an HTTP answer stays in the error, not in its line.
func plain(err error, msg, shown string) error {
	return plainAs(err, msg, shown, func(reason string, _ abxerr.Code) string { return shown + ": " + reason })
}

// plainAs is plain with the line that line makes of the reason.
func plainAs(err error, msg, shown string, line func(reason string, code abxerr.Code) string) error {
	var e *abxerr.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case abxerr.Server, abxerr.Rejected, abxerr.NotFound, abxerr.PermissionDenied:
	default:
		return err
	}
	reason, code, ok := reasonIn(msg)
	if !ok {
		return err
	}
	out := *e
	out.Code, out.Message = code, line(reason, code)
	out.Cause = &PathError{Path: shown, Reason: reason, Err: e.Cause}
	if code == abxerr.PermissionDenied {
		out.Hint = permissionHint
	}
	return &out
}

// denied gives e the code of a path the sandbox refused its user, when
// envd's message says so: permission denied inside the sandbox, not a
// refusal of the key.
func denied(e *abxerr.Error, msg string) {
	if strings.Contains(msg, deniedWords) {
		e.Code, e.Hint = abxerr.PermissionDenied, permissionHint
	}
}

// pathErr is an RPC's failure about shown, as abx says it (AsError, then
// plain).
func pathErr(err error, shown string) error {
	if err == nil {
		return nil
	}
	return plain(AsError(err), messageOf(err), shown)
}

// messageOf is envd's own message of an RPC's failure.
func messageOf(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce.Message()
	}
	return err.Error()
}
