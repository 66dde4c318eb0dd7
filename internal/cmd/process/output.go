// Package process holds the commands that run and manage processes inside
// a sandbox: exec, and ps with kill, stdin and attach.
package process

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// The JSON Lines events of exec and ps attach (docs/json.md).
type (
	startEvent struct {
		Type string `json:"type"`
		PID  uint32 `json:"pid"`
	}
	endEvent struct {
		Type     string `json:"type"`
		ExitCode int    `json:"exitCode"`
		Status   string `json:"status"`
	}
	// reconnectEvent: the stream was cut and taken up again; output the
	// process wrote in the gap may be missing. Durations in seconds.
	reconnectEvent struct {
		Type     string  `json:"type"`
		PID      uint32  `json:"pid"`
		CutAfter float64 `json:"cutAfter"`
		Gap      float64 `json:"gap"`
		Attempts int     `json:"attempts"`
		Reason   string  `json:"reason"`
	}
)

// dataEvent carries a chunk of output: as text when it is UTF-8, else as
// base64, so that any bytes survive a JSON reader. It is made into JSON
// only when it is printed as JSON: people's form writes the chunk as it
// came, and a copy of every chunk (string(b)) was most of what exec
// allocated.
type dataEvent struct {
	kind string
	b    []byte
}

func (e dataEvent) MarshalJSON() ([]byte, error) {
	if utf8.Valid(e.b) {
		return json.Marshal(struct {
			Type string `json:"type"`
			Data string `json:"data,omitempty"`
		}{e.kind, string(e.b)})
	}
	return json.Marshal(struct {
		Type       string `json:"type"`
		DataBase64 []byte `json:"dataBase64,omitempty"`
	}{e.kind, e.b})
}

// sink hands a process's events to the printer's stream: for people its
// bytes on abx's own stdout and stderr, for programs JSON Lines events.
type sink struct {
	p  *output.Printer
	st *output.Stream
	// announce prints the start event: exec's, not attach's, whose process
	// started long ago.
	announce bool
	// ev is the output event Stdout and Stderr fill.
	ev *dataEvent
}

var (
	_ remoteproc.ReconnectSink = sink{}
	_ sandboxes.DiscardSink    = sink{}
)

// newSink starts the stream of a process's events; exec's JSON is always
// JSON Lines.
func newSink(p *output.Printer, announce bool) sink {
	return sink{p: p, st: p.Stream(output.StreamSpec{}), announce: announce, ev: &dataEvent{}}
}

func (s sink) Started(pid uint32) error {
	if !s.announce {
		return nil
	}
	return s.st.Event(startEvent{Type: "start", PID: pid})
}

// Stdout and Stderr hand the stream one event, reused: it is printed
// before they return, and an event boxed anew for each chunk was one
// allocation a chunk.
func (s sink) Stdout(b []byte) error {
	*s.ev = dataEvent{"stdout", b}
	return s.st.Output(s.ev, b)
}

func (s sink) Stderr(b []byte) error {
	*s.ev = dataEvent{"stderr", b}
	return s.st.ErrOutput(s.ev, b)
}

// Reconnected says that the stream was cut and taken up again: for people
// one line on stderr, for programs an event.
func (s sink) Reconnected(r remoteproc.Reconnect) error {
	ev := reconnectEvent{Type: "reconnect", PID: r.PID, CutAfter: output.Seconds(r.CutAfter), Gap: output.Seconds(r.Gap),
		Attempts: r.Attempts, Reason: r.Reason}
	return s.st.Note(ev, "abx: the stream of process %d was cut after %.1fs (%s); reattached %.1fs later: output written in between may be missing",
		r.PID, r.CutAfter.Seconds(), r.Reason, r.Gap.Seconds())
}

// cutHint says, on the error of a stream that was cut and not taken up
// again, how to look at the process, which may run on.
func cutHint(err error, id string) error {
	if !errors.Is(err, remoteproc.ErrCut) {
		return err
	}
	e := *abxerr.From(err)
	if e.Code == abxerr.StatusUnknown {
		e.Hint = "abx makes no exit status up: check what the command left behind; 'abx ps " + id + "' lists what still runs"
	} else {
		e.Hint = "the process may still be running: see it with 'abx ps " + id + "'"
	}
	return &e
}

// ended tells programs how the process ended.
func (s sink) ended(x *remoteproc.Exit) error {
	return s.st.Event(endEvent{Type: "end", ExitCode: x.Code, Status: x.Status})
}

// Discarded says, before attaching, that a command started with
// --background shows nothing: its output goes to /dev/null in the sandbox
// (docs/exec.md, "Background commands").
func (s sink) Discarded(pid uint32) error {
	s.p.Note("process %d was started with --background: its output goes to /dev/null in the sandbox and was never kept, so only its end will show", pid)
	return nil
}

// end says how a process abx followed in sandbox id ended, and returns
// abx's outcome: the process's status passed through, or the failure,
// with how to look at a process whose stream was cut.
func (s sink) end(id string, x *sandboxes.Execution, err error) error {
	if x != nil && x.SandboxEnded {
		s.p.Note("abx: sandbox %s ended while the command ran (killed, or its timeout passed), and the command with it", id)
	}
	if x != nil && x.Exit != nil {
		if perr := s.ended(x.Exit); perr != nil && err == nil {
			return perr
		}
	}
	if err != nil {
		return cutHint(err, id)
	}
	if x.Exit.Code != 0 {
		return abxerr.Status(x.Exit.Code)
	}
	return nil
}
