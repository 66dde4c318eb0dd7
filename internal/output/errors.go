package output

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/abx-dev/abx/internal/abxerr"
)

// jsonError is the shape of an error on stderr with -o json (docs/json.md).
type jsonError struct {
	Error struct {
		Code       abxerr.Code `json:"code"`
		Message    string      `json:"message"`
		Hint       string      `json:"hint,omitempty"`
		RequestID  string      `json:"requestID,omitempty"`
		HTTPStatus int         `json:"httpStatus,omitempty"`
		ExitCode   int         `json:"exitCode"`
	} `json:"error"`
}

var errorStyle = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)

// printError writes err once on stderr: one line for people, or one JSON
// object when the command's output is JSON.
func (s *Streams) printError(e *abxerr.Error, exit int, asJSON bool) {
	if asJSON {
		var j jsonError
		j.Error.Code, j.Error.Message, j.Error.Hint = e.Code, e.Message, e.Hint
		j.Error.RequestID, j.Error.HTTPStatus, j.Error.ExitCode = e.RequestID, e.Status, exit
		_ = WriteJSONLine(s.ErrOut, j)
		return
	}
	_, _ = fmt.Fprintln(s.ErrOut, s.ErrorLine(e))
}

// ErrorLine is the one-line human form of an error:
//
//	error[E3001]: <message>; <hint> (request_id <id>)
func (s *Streams) ErrorLine(e *abxerr.Error) string {
	label := fmt.Sprintf("error[%s]:", e.Code)
	if s.StderrTTY && s.Color {
		label = errorStyle.Render(label)
	}
	var b strings.Builder
	b.WriteString(label + " " + oneLine(e.Message))
	if e.Hint != "" {
		b.WriteString("; " + oneLine(e.Hint))
	}
	if e.RequestID != "" {
		b.WriteString(" (request_id " + e.RequestID + ")")
	}
	return b.String()
}

// oneLine keeps a server's multi-line message on the one line it belongs to.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
