package abxerr

import (
	"errors"
	"fmt"
)

// ExitOwnFailure is the status of abx's own failure in the commands that
// pass a remote status through (exec, ps attach, run-code), docker's
// convention: their status space belongs to the remote side, so abx's
// failures take one status of their own. The error says why.
const ExitOwnFailure = 125

// Status is an exit status that has spoken for itself: a remote command's,
// or code that raised. It is passed through as it is and nothing is
// printed for it.
type Status int

func (s Status) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Exit is the one rule that turns a command's outcome into abx's exit
// status (docs/exit-codes.md).
//
// A plain command exits with its error code's status. A pass-through
// command exits with the remote status it was handed (Status), and with
// 125 for every failure of abx's own, whatever its code, so that a script
// can tell "the command failed" from "abx failed"; only a passed deadline
// (124), Ctrl-C (130) and a closed output (141) keep their status, because
// they say what happened to the run itself.
func Exit(err error, passThrough bool) int {
	if err == nil {
		return ExitOK
	}
	var s Status
	if errors.As(err, &s) {
		return int(s)
	}
	e := From(err)
	if e.Exit != 0 {
		return e.Exit
	}
	code := e.Code.ExitCode()
	if passThrough && code != ExitTimeout && code != ExitInterrupted && code != ExitOutputClosed {
		return ExitOwnFailure
	}
	return code
}
