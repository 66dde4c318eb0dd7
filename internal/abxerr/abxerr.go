// Package abxerr defines the one error type abx shows to people and programs:
// a stable code, a message, a hint that says what to do, and the server's
// request id when a server answered. Every code has a documented exit status
// (docs/errors.md, docs/exit-codes.md).
package abxerr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Code is a stable error code. Codes are never renumbered: scripts and support
// tickets quote them.
type Code string

// The codes abx uses. The first digit groups them by exit status.
const (
	Usage                Code = "E1001" // bad flags or arguments
	InvalidInput         Code = "E1002" // a value that cannot be used
	MissingConfig        Code = "E1003" // a required setting is not set
	InvalidConfig        Code = "E1004" // a setting holds an unusable value
	UnknownProvider      Code = "E1005" // --provider is missing or unknown
	ConfirmationRequired Code = "E1006" // a destructive action needs --yes
	Paused               Code = "E2001" // the sandbox is paused: its servers answer nothing until it is resumed
	NotFound             Code = "E3001" // the sandbox (or other object) does not exist
	Unauthorized         Code = "E4001" // the API key was refused
	Forbidden            Code = "E4003" // the key may not do this (or a quota is reached)
	Network              Code = "E5001" // the service could not be reached
	Server               Code = "E5002" // the service failed (5xx)
	Rejected             Code = "E5003" // the service refused the request (other 4xx)
	BadResponse          Code = "E5004" // the service answered something abx cannot read
	FilterFailed         Code = "E5005" // --jq failed on the output (not on the expression)
	StatusUnknown        Code = "E5006" // a process ended while abx was not attached: how is unknown
	PermissionDenied     Code = "E5007" // the sandbox refused a path to its user: its own permissions, not the key
	Timeout              Code = "E6001" // a deadline passed
	Interrupted          Code = "E7001" // the user pressed Ctrl-C
	OutputClosed         Code = "E7002" // the reader of abx's output went away: never printed
	Unsupported          Code = "E8004" // the provider does not have this capability
	Internal             Code = "E9001" // abx failed on this machine in a way it did not foresee
)

// Exit statuses, as documented in docs/exit-codes.md.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitNotFound    = 3
	ExitAuth        = 4
	ExitUnsupported = 5
	ExitPaused      = 6
	ExitTimeout     = 124
	ExitInterrupted = 130
	// ExitOutputClosed is 128+SIGPIPE: the status a shell gives any
	// program that wrote to a pipe nobody reads any more, and the one abx
	// died with before it caught the signal.
	ExitOutputClosed = 141
)

var exitCodes = map[Code]int{
	Usage:                ExitUsage,
	InvalidInput:         ExitUsage,
	MissingConfig:        ExitUsage,
	InvalidConfig:        ExitUsage,
	UnknownProvider:      ExitUsage,
	ConfirmationRequired: ExitUsage,
	Paused:               ExitPaused,
	NotFound:             ExitNotFound,
	Unauthorized:         ExitAuth,
	Forbidden:            ExitAuth,
	Network:              ExitFailure,
	Server:               ExitFailure,
	Rejected:             ExitFailure,
	BadResponse:          ExitFailure,
	FilterFailed:         ExitFailure,
	StatusUnknown:        ExitFailure,
	PermissionDenied:     ExitFailure,
	Timeout:              ExitTimeout,
	Interrupted:          ExitInterrupted,
	OutputClosed:         ExitOutputClosed,
	Unsupported:          ExitUnsupported,
	Internal:             ExitFailure,
}

// Codes lists every code in documentation order.
func Codes() []Code {
	return []Code{Usage, InvalidInput, MissingConfig, InvalidConfig, UnknownProvider,
		ConfirmationRequired, Paused, NotFound, Unauthorized, Forbidden, Network, Server, Rejected,
		BadResponse, FilterFailed, StatusUnknown, PermissionDenied, Timeout, Interrupted, OutputClosed, Unsupported, Internal}
}

// ExitCode is the process exit status that goes with a code.
func (c Code) ExitCode() int {
	if n, ok := exitCodes[c]; ok {
		return n
	}
	return ExitFailure
}

// Error is the error abx reports. Message and Hint are written for people;
// Cause is kept for errors.Is/As and never printed.
type Error struct {
	Code      Code
	Message   string
	Hint      string
	RequestID string
	Status    int // HTTP status, when a server answered
	// RetryAfter is how long the server asked to wait before trying
	// again (its Retry-After), 0 when it did not say.
	RetryAfter time.Duration
	Cause      error
	// Exit, when not zero, replaces the code's exit status; only a
	// pass-through command sets it, for an outcome of the remote side that
	// has a status of its own (exec's 127, command not found).
	Exit int
	// Next is what the caller can do about it, in no door's words; a door
	// says it with its own command or tool when Hint is empty (the command
	// line: 'abx resume ID'; the MCP tools: sandbox_resume). Subject is
	// what Next is about: the sandbox, or the provider.
	Next    Step
	Subject string
}

// Step is a next step an error suggests, which each door words in its own
// terms (docs/architecture.md, "Hints").
type Step string

// The steps.
const (
	StepList         Step = "list"         // no such sandbox: list the ones there are
	StepResume       Step = "resume"       // the sandbox Subject is paused: resume it
	StepCapabilities Step = "capabilities" // the provider Subject lacks it: see what it has
	StepFindCreated  Step = "find-created" // a create may have made a sandbox: find it before creating again
	StepConnect      Step = "connect"      // the sandbox Subject runs already: there is nothing to resume
	StepContexts     Step = "contexts"     // no such context in the sandbox Subject's code interpreter: list its contexts
)

// Suggest returns a copy of e with a next step about subject. e itself is
// left as it was: an error may be shared (a package's variable, one error
// handed to two doors), and one caller's step is not another's.
func (e *Error) Suggest(next Step, subject string) *Error {
	c := *e
	c.Next, c.Subject = next, subject
	return &c
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Cause }

// ExitCode is the exit status for this error.
func (e *Error) ExitCode() int {
	if e.Exit != 0 {
		return e.Exit
	}
	return e.Code.ExitCode()
}

// New makes an error with a formatted message. A text argument longer
// than MaxQuoted is cut (Cut), as every error quotes.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, cutArgs(args)...)}
}

// WithHint returns a copy of e with a hint (what the user can do about
// it); its arguments are cut as New's are. e itself is left as it was, as
// Suggest leaves it: a caller that drops the result has changed nothing.
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Hint = fmt.Sprintf(format, cutArgs(args)...)
	return &c
}

// NewUnsupported refuses a capability the provider lacks: the same code and
// shape wherever it is raised.
func NewUnsupported(provider, capability string) *Error {
	return New(Unsupported, "provider %s does not support %s", provider, capability).Suggest(StepCapabilities, provider)
}

// From turns any error into an *Error, classifying the usual Go failures
// (deadlines, cancellation, network) so that every error has a code.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: Timeout, Message: "timed out waiting for the service", Cause: err,
			Hint: "raise --request-timeout if the service is slow"}
	case errors.Is(err, context.Canceled):
		return &Error{Code: Interrupted, Message: "interrupted", Cause: err}
	}
	var netErr net.Error
	var urlErr *url.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &Error{Code: Timeout, Message: "timed out waiting for the service", Cause: err,
			Hint: "raise --request-timeout if the service is slow"}
	}
	if errors.As(err, &urlErr) || errors.As(err, &netErr) {
		return &Error{Code: Network, Message: "cannot reach the service: " + networkReason(err), Cause: err,
			Hint: "check the domain or base URL, your network and HTTPS_PROXY/NO_PROXY"}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return &Error{Code: Network, Message: "the connection to the service broke: " + networkReason(err), Cause: err,
			Hint: "check your network and HTTPS_PROXY/NO_PROXY, then try again"}
	}
	// Not a failure of the service: say so, and keep the reason.
	return &Error{Code: Internal, Message: "abx failed: " + Cut(err.Error()), Cause: err,
		Hint: "run again with --debug; if it persists, report it with that output"}
}

// networkReason keeps the useful tail of a Go network error ("dial tcp
// 10.0.0.1:443: connect: connection refused") without the method and URL,
// which the --debug log already shows.
func networkReason(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "dial ") {
		return msg[i+2:]
	}
	return msg
}
