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

// sink hands a process's events to the printer's stream: for people its
// bytes on abx's own stdout and stderr, for programs JSON Lines events.
type sink struct {
	st *output.Stream
	// announce prints the start event: exec's, not attach's, whose process
	// started long ago.
	announce bool
}

var _ remoteproc.Sink = sink{}

// newSink starts the stream of a process's events; exec's JSON is always
// JSON Lines.
func newSink(p *output.Printer, announce bool) sink {
	return sink{st: p.Stream(output.StreamSpec{}), announce: announce}
}

func (s sink) Started(pid uint32) error {
	if !s.announce {
		return nil
	}
	return s.st.Event(startEvent{Type: "start", PID: pid})
}

func (s sink) Stdout(b []byte) error { return s.st.Output(newDataEvent("stdout", b), b) }

func (s sink) Stderr(b []byte) error { return s.st.ErrOutput(newDataEvent("stderr", b), b) }

// ended tells programs how the process ended.
func (s sink) ended(x *remoteproc.Exit) error {
	return s.st.Event(endEvent{Type: "end", ExitCode: x.Code, Status: x.Status})
}
