package mcpserver

import (
	"context"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
)

// envd is the client of sandbox id's envd for a tool that needs c, kept
// between calls by the sandbox operations.
func (s *server) envd(ctx context.Context, id string, c provider.Capability) (*envd.Client, error) {
	return s.opts.Sandboxes.Envd(ctx, id, "", c)
}

// toolHint says an error's next step with the tool that takes it, for an
// agent: the layers below say it in no door's words (abxerr.Step).
func toolHint(e *abxerr.Error) string {
	switch e.Next {
	case abxerr.StepList:
		if e.Code == abxerr.NotFound {
			return "sandbox_list lists the sandboxes that exist"
		}
		return "pass an ID as sandbox_create or sandbox_list gives it"
	case abxerr.StepResume:
		return "resume it first with sandbox_resume"
	case abxerr.StepConnect:
		return "it is running already: there is nothing to resume"
	case abxerr.StepContexts:
		if e.Code == abxerr.NotFound {
			return "the context may not exist; leave out context_id to run in the language's default context"
		}
		return "leave out context_id to run in the language's default context"
	case abxerr.StepFindCreated:
		return "the sandbox may have been created: check with sandbox_list (filter with metadata) before creating it again"
	}
	return ""
}
