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
// object when the command's output is JSON. A server's message may echo
// the key it was sent: secrets are redacted in both forms, and JSON escapes
// the controls itself. Both hold a long word to what an error quotes.
func (s *Streams) printError(e *abxerr.Error, exit int, asJSON bool) {
	if asJSON {
		var j jsonError
		red := s.Secrets.Redact
		j.Error.Code, j.Error.Message, j.Error.Hint = e.Code, abxerr.CutWords(red(e.Message)), abxerr.CutWords(red(e.Hint))
		j.Error.RequestID, j.Error.HTTPStatus, j.Error.ExitCode = red(e.RequestID), e.Status, exit
		_ = WriteJSONLine(s.ErrOut, j)
		return
	}
	_, _ = fmt.Fprintln(s.ErrOut, s.ErrorLine(e))
}

// ErrorLine is the one-line human form of an error:
//
//	error[E3001]: <message>; <hint> (request_id <id>)
//
// The message, hint and request id are made safe (see Safe); only the
// label, abx's own, is coloured.
func (s *Streams) ErrorLine(e *abxerr.Error) string {
	label := fmt.Sprintf("error[%s]:", e.Code)
	if s.StderrTTY && s.Color {
		label = errorStyle.Render(label)
	}
	var b strings.Builder
	b.WriteString(label + " " + s.safeLine(e.Message))
	if e.Hint != "" {
		b.WriteString("; " + s.safeLine(e.Hint))
	}
	if e.RequestID != "" {
		b.WriteString(" (request_id " + s.safeLine(e.RequestID) + ")")
	}
	return b.String()
}

// safeLine is a part of an error line: secrets redacted while the text is
// as the server sent it, then on one line with its long words cut
// (abxerr.CutWords), then controls escaped.
func (s *Streams) safeLine(text string) string {
	return Escape(abxerr.CutWords(oneLine(s.Secrets.Redact(text))))
}

// oneLine keeps a server's multi-line message on the one line it belongs
// to: its line breaks and tabs become spaces, which Escape would otherwise
// show as \n and \t.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
