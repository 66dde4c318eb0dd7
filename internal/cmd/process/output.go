// Package process holds the commands that run and manage processes inside
// a sandbox: exec, and ps with kill, stdin and attach.
package process

import (
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// The JSON Lines events of exec and ps attach (docs/json.md).
type (
	startEvent struct {
		Type string `json:"type"`
		PID  uint32 `json:"pid"`
	}
	// dataEvent carries output: text when it is UTF-8, base64 otherwise,
	// so that any bytes survive a JSON reader.
	dataEvent struct {
		Type       string `json:"type"`
		Data       string `json:"data,omitempty"`
		DataBase64 []byte `json:"dataBase64,omitempty"`
	}
	endEvent struct {
		Type     string `json:"type"`
		ExitCode int    `json:"exitCode"`
		Status   string `json:"status"`
	}
)

func newDataEvent(kind string, b []byte) dataEvent {
	if utf8.Valid(b) {
		return dataEvent{Type: kind, Data: string(b)}
	}
	return dataEvent{Type: kind, DataBase64: b}
}

// sink shows a process's output as the format asks: its bytes on abx's
// own stdout and stderr, or JSON Lines events.
type sink struct {
	io *output.Streams
	p  *output.Printer
	// announce prints the start event: exec's, not attach's, whose process
	// started long ago.
	announce bool
}

var _ remoteproc.Sink = sink{}

func (s sink) Started(pid uint32) error {
	if s.p.JSON() && s.announce {
		return s.p.Event(startEvent{Type: "start", PID: pid})
	}
	return nil
}

func (s sink) Stdout(b []byte) error {
	if s.p.JSON() {
		return s.p.Event(newDataEvent("stdout", b))
	}
	_, err := s.io.Out.Write(b)
	return err
}

func (s sink) Stderr(b []byte) error {
	if s.p.JSON() {
		return s.p.Event(newDataEvent("stderr", b))
	}
	_, err := s.io.ErrOut.Write(b)
	return err
}

// ended prints the end event for programs.
func (s sink) ended(x *remoteproc.Exit) error {
	if !s.p.JSON() {
		return nil
	}
	return s.p.Event(endEvent{Type: "end", ExitCode: x.Code, Status: x.Status})
}
