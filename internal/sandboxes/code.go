package sandboxes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
)

// languages are the languages the code interpreter knows
// (docs/run-code.md, contexts), with their aliases.
var languages = map[string]string{
	"python": "python", "javascript": "javascript", "js": "javascript",
	"typescript": "typescript", "ts": "typescript", "r": "r", "java": "java", "bash": "bash",
}

// DefaultLanguage is the language of code run in no named context. It is
// always sent: the interpreter finds the default context by its language,
// and its bare default does not survive a restart of that context.
const DefaultLanguage = "python"

// Languages lists the languages, without their aliases, in order.
func Languages() []string {
	var out []string
	for _, l := range languages {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// language reads the language input of op, in any case: one of the
// languages or one of their aliases (the input's Enum), as the language
// it names; "" stays "".
func language(ctx context.Context, op *Operation, v string) (string, error) {
	l, err := op.Input("language").CheckChoice(ctx, v)
	if err != nil || l == "" {
		return "", err
	}
	return languages[l], nil
}

// Code is code to run in a sandbox's code interpreter.
type Code struct {
	codeinterp.Request
	// Source, when set, gives the code in place of Request.Code, once the
	// other inputs of the run are checked: a door that reads the code from
	// its stdin or a file reads nothing for a run refused.
	Source func() (string, error)
	// Timeout bounds the wait for the run (a process's time limit); 0
	// leaves it to the caller's context.
	Timeout time.Duration
	// Spool, when set, takes the values of results' formats as their
	// lines are read, so that no image is held whole
	// (codeinterp.ExecuteSpooled).
	Spool codeinterp.Spool
}

// ErrStillRunning is in the chain of the error of a run abx stopped
// waiting for (Ctrl-C, the timeout): the interpreter lets the code run on,
// and its context runs nothing else until it ends. A door says how to stop
// it in its own words.
var ErrStillRunning = errors.New("the code may still be running")

// ErrEnded is in the chain of the error of a run the interpreter ended
// itself (ServerEnded): every event of the run was handed on before it.
var ErrEnded = errors.New("the code interpreter ended the run")

// serverErrors are the names of the error lines the code interpreter sends
// itself when something other than the code ended the run.
var serverErrors = map[string]bool{
	"UnexpectedEndOfExecution": true, "ContextRestarting": true, "ExecutionAborted": true,
}

// ServerEnded tells whether an error line is the interpreter's own: the
// run was ended by something other than the code (its context restarted
// or deleted, its kernel died), which the code did not raise.
func ServerEnded(e *codeinterp.ExecError) bool { return e != nil && serverErrors[e.Name] }

// RunCode runs code in the sandbox's code interpreter and hands each event
// to on as it arrives, the interpreter's own error lines included. The
// request is checked before anything is read or sent: a context or a
// language, not both (none is DefaultLanguage), the time limit, the
// environment, then the code itself. The run fails with E5002 when the
// interpreter ended it (ServerEnded); with E7001 when ctx ended and E6001
// when the timeout passed, both wrapping ErrStillRunning. The code's own
// error is an event, not a failure: run-code's status is the door's.
func (s *Service) RunCode(ctx context.Context, id string, code Code, on func(codeinterp.Event) error) error {
	op := Op("code.run")
	if _, err := s.on(ctx, op, id); err != nil {
		return err
	}
	req := &code.Request
	var err error
	switch {
	case req.Language != "" && req.ContextID != "":
		return abxerr.New(abxerr.InvalidInput, "give %s or %s, not both: a context has its language",
			op.Input("language").name(ctx), op.Input("context").name(ctx))
	case req.ContextID != "":
		if err := checkContext(ctx, op, id, req.ContextID); err != nil {
			return err
		}
	case req.Language == "":
		req.Language = DefaultLanguage
	default:
		if req.Language, err = language(ctx, op, req.Language); err != nil {
			return err
		}
	}
	if err := op.Input("timeout").CheckSeconds(ctx, code.Timeout); err != nil {
		return err
	}
	if err := checkCodeEnv(op.Input("env").name(ctx), req.EnvVars); err != nil {
		return err
	}
	if code.Source != nil {
		if req.Code, err = code.Source(); err != nil {
			return err
		}
	}
	if err := op.Input("code").CheckText(ctx, req.Code); err != nil {
		return err
	}
	c, err := s.interpreter(ctx, id)
	if err != nil {
		return err
	}
	runCtx := ctx
	if code.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, code.Timeout)
		defer cancel()
	}
	var ended *codeinterp.ExecError
	err = c.ExecuteSpooled(runCtx, *req, code.Spool, func(ev codeinterp.Event) error {
		if ServerEnded(ev.Error) {
			ended = ev.Error
		}
		return on(ev)
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return &abxerr.Error{Code: abxerr.Interrupted, Message: "interrupted: abx stopped waiting, but the code may still be running",
			Cause: ErrStillRunning}
	case runCtx.Err() != nil:
		return &abxerr.Error{Code: abxerr.Timeout, Cause: ErrStillRunning,
			Message: fmt.Sprintf("the code did not finish within %s: abx stopped waiting, but it may still be running", code.Timeout)}
	default:
		return inContext(err, id, req.ContextID)
	}
	if ended != nil {
		return &abxerr.Error{Code: abxerr.Server, Cause: ErrEnded,
			Message: fmt.Sprintf("the code interpreter ended the run: %s: %s", ended.Name, ended.Value),
			Hint:    "its context was restarted or deleted meanwhile, or its kernel died; its variables may be gone"}
	}
	return nil
}

// checkCodeEnv refuses what no process can be given (CheckEnv), and what
// the code interpreter cannot pass on: it pastes each pair into code it
// runs (os.environ['K'] = 'V'), so a quote, a backslash or a line break
// would break that code, or run some of its own.
func checkCodeEnv(what string, env map[string]string) error {
	if err := CheckEnv(what, env); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if strings.ContainsAny(k+env[k], "'\"\\\n\r") {
			return abxerr.New(abxerr.InvalidInput, "invalid %s %s: quotes, backslashes and line breaks cannot be passed to the code interpreter", what, k).
				WithHint("set it in the code instead, or write it to a file in the sandbox")
		}
	}
	return nil
}
