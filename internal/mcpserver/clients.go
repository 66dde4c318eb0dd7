package mcpserver

import (
	"github.com/abx-dev/abx/internal/abxerr"
)

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
