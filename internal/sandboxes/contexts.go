package sandboxes

import (
	"context"
	"errors"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
)

// The contexts of a sandbox's code interpreter: each an interpreter with
// its own variables, language and working directory (docs/run-code.md).

// Contexts lists the contexts of the sandbox's code interpreter.
func (s *Service) Contexts(ctx context.Context, id string) ([]codeinterp.Context, error) {
	if _, err := s.on(ctx, Op("code.contexts"), id); err != nil {
		return nil, err
	}
	c, err := s.interpreter(ctx, id)
	if err != nil {
		return nil, err
	}
	return c.Contexts(ctx)
}

// CreateContext starts a context for language (an alias is read as its
// language; "" is the interpreter's default, python) working in cwd (""
// for the interpreter's default).
func (s *Service) CreateContext(ctx context.Context, id, lang, cwd string) (*codeinterp.Context, error) {
	op := Op("code.context.create")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	lang, err := language(ctx, op, lang)
	if err != nil {
		return nil, err
	}
	c, err := s.interpreter(ctx, id)
	if err != nil {
		return nil, err
	}
	return c.CreateContext(ctx, lang, cwd)
}

// RestartContext restarts a context's interpreter: its variables are lost,
// and code it was running is stopped.
func (s *Service) RestartContext(ctx context.Context, id, contextID string) error {
	return s.changeContext(ctx, Op("code.context.restart"), id, contextID, (*codeinterp.Client).RestartContext)
}

// DeleteContext stops a context for good.
func (s *Service) DeleteContext(ctx context.Context, id, contextID string) error {
	return s.changeContext(ctx, Op("code.context.delete"), id, contextID, (*codeinterp.Client).DeleteContext)
}

// changeContext is restart and delete, which differ only in what they ask
// of the interpreter.
func (s *Service) changeContext(ctx context.Context, op *Operation, id, contextID string,
	change func(*codeinterp.Client, context.Context, string) error) error {
	if _, err := s.on(ctx, op, id); err != nil {
		return err
	}
	if err := op.Input("context").CheckText(ctx, contextID); err != nil {
		return abxerr.From(err).Suggest(abxerr.StepContexts, id)
	}
	if err := checkContext(ctx, op, id, contextID); err != nil {
		return err
	}
	c, err := s.interpreter(ctx, id)
	if err != nil {
		return err
	}
	return inContext(change(c, ctx, contextID), id, contextID)
}

// checkContext refuses a context ID no interpreter issues (they are
// UUIDs), before it is put into a URL: restart and delete send it in the
// path. The next step is the sandbox's list of contexts.
func checkContext(ctx context.Context, op *Operation, id, contextID string) error {
	if err := CheckID(op.Input("context").name(ctx), contextID); err != nil {
		return err.Suggest(abxerr.StepContexts, id)
	}
	return nil
}

// inContext points an interpreter's "not found" for a call in a named
// context at the sandbox's contexts: the sandbox was found (its
// interpreter answered), so it is the context that is missing.
func inContext(err error, id, contextID string) error {
	var e *abxerr.Error
	if contextID == "" || !errors.As(err, &e) || e.Code != abxerr.NotFound || e.Hint != "" || e.Next != "" {
		return err
	}
	return e.Suggest(abxerr.StepContexts, id)
}
