package root

import "github.com/abx-dev/abx/internal/abxerr"

// cliHint says an error's next step with the command that takes it, when
// the error has no hint of its own: the layers below the command line say
// what to do in no door's words (abxerr.Step), and each door names its
// own commands or tools (docs/architecture.md, "Hints").
func cliHint(e *abxerr.Error) {
	if e.Hint != "" {
		return
	}
	switch e.Next {
	case abxerr.StepList:
		if e.Code == abxerr.NotFound {
			e.Hint = "run 'abx list' to see the sandboxes that exist"
		} else {
			e.Hint = "pass an ID as shown by 'abx list'"
		}
	case abxerr.StepResume:
		e.Hint = "resume it first: 'abx resume " + e.Subject + "'"
	case abxerr.StepConnect:
		e.Hint = "it is running already: 'abx connect " + e.Subject + "' makes sure a sandbox runs, paused or not"
	case abxerr.StepFindCreated:
		e.Hint = "the sandbox may have been created: check with 'abx list' (filter with --metadata) before creating it again"
	case abxerr.StepContexts:
		if e.Code == abxerr.NotFound {
			e.Hint = "run 'abx run-code contexts list " + e.Subject + "' to see its contexts"
		} else {
			e.Hint = "pass a context ID as shown by 'abx run-code contexts list " + e.Subject + "'"
		}
	case abxerr.StepCapabilities:
		e.Hint = "run 'abx capabilities' to see what " + e.Subject + " supports"
	}
}
