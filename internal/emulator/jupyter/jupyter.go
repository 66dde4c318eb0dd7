//go:build unix

// Package jupyter is a faithful stand-in for the code interpreter's HTTP
// front (docs/protocol.md, "The code interpreter"): the FastAPI server of
// e2b-dev/code-interpreter that sits before Jupyter kernels on port 49999.
// Its kernels are local python3 processes running driver.py, which imitates
// an IPython kernel closely enough for clients: persistent variables,
// execution counts, results through the display protocol, coloured
// tracebacks, and output that streams as the code runs. Like the real
// server, it lets the code run on when the client goes away. JavaScript
// (and TypeScript, on the same kernel) and Bash kernels imitate the
// template's ijavascript and bash_kernel (driver.js, driver_bash.py).
package jupyter

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/emulator/reqlog"
	"github.com/abx-dev/abx/internal/emulator/spawn"
	"github.com/abx-dev/abx/internal/loopback"
)

// Options configure a fake code interpreter.
type Options struct {
	// Command makes a kernel's command, not started: argv run in the
	// sandbox directory dir (a context's cwd; "~" is the default), leading
	// a session of its own. An error means dir is not a directory a kernel
	// can run in. Nil runs argv on this machine, dir a path of it, with
	// this process's environment.
	Command func(dir string, argv []string) (*spawn.Cmd, error)
	// Python is the interpreter the python and bash kernels run (default
	// python3), Node the JavaScript kernel's (default node), each from the
	// sandbox's PATH.
	Python, Node string
	// Keepalive is the interval of keepalive lines in /execute (default 5s).
	Keepalive time.Duration
	// BodyIdle bounds each read of a request's body (default 60s, abx's
	// own idle bound): the server asks no token, so any client of the
	// gateway, code in a sandbox among them, could otherwise hold a
	// connection with a body that never ends.
	BodyIdle time.Duration
	// KeepRequests keeps every request's method, path and headers for
	// Requests: tests set it; a running emulator keeps nothing.
	KeepRequests bool
}

// Request is one request as the fake received it.
type Request = reqlog.Request

// Server is a fake code interpreter. It is an http.Handler.
type Server struct {
	opts Options
	mux  *http.ServeMux

	mu       sync.Mutex
	contexts []*codeContext // in creation order
	byID     map[string]*codeContext
	defaults map[string]*codeContext // the default context of each language used
	closed   bool

	log reqlog.Log
}

// New returns a fake code interpreter whose default python context starts
// its kernel on first use.
func New(opts Options) *Server {
	if opts.Command == nil {
		opts.Command = hostCommand
	}
	if opts.Python == "" {
		opts.Python = "python3"
	}
	if opts.Node == "" {
		opts.Node = "node"
	}
	if opts.Keepalive <= 0 {
		opts.Keepalive = 5 * time.Second
	}
	if opts.BodyIdle <= 0 {
		opts.BodyIdle = 60 * time.Second
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), byID: map[string]*codeContext{}, defaults: map[string]*codeContext{}}
	s.log.Keep = opts.KeepRequests
	// The real server starts a default python and javascript context.
	s.defaultContext("python")
	s.defaultContext("javascript")
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, "OK") })
	s.mux.HandleFunc("POST /execute", s.execute)
	s.mux.HandleFunc("POST /contexts", s.createContext)
	s.mux.HandleFunc("GET /contexts", s.listContexts)
	s.mux.HandleFunc("POST /contexts/{id}/restart", s.restartContext)
	s.mux.HandleFunc("DELETE /contexts/{id}", s.deleteContext)
	// FastAPI's answer to a path it does not know.
	s.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	})
	return s
}

// ServeHTTP logs the request and serves it. Like the real server, it asks
// for no token: clients send X-Access-Token on /execute only, and the
// emulator is never stricter than what it imitates. What it adds is a
// bound on a body that stops coming (docs/emulator.md, "Who it serves").
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Record(r)
	defer loopback.IdleBody(w, r, s.opts.BodyIdle)()
	s.mux.ServeHTTP(w, r)
}

// Requests returns a copy of the request log.
func (s *Server) Requests() []Request { return s.log.Requests() }

// Pause stops every kernel (SIGSTOP), as a paused sandbox's are.
func (s *Server) Pause() { s.signalAll(syscall.SIGSTOP) }

// Resume continues the kernels Pause stopped.
func (s *Server) Resume() { s.signalAll(syscall.SIGCONT) }

// Close kills every kernel and waits for them; executions in progress end
// as when the server goes away.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	contexts := append([]*codeContext(nil), s.contexts...)
	s.mu.Unlock()
	for _, cx := range contexts {
		cx.stop(true, connectionClosed())
	}
}

func (s *Server) signalAll(sig syscall.Signal) {
	s.mu.Lock()
	contexts := append([]*codeContext(nil), s.contexts...)
	s.mu.Unlock()
	for _, cx := range contexts {
		if k := cx.current(); k != nil {
			k.signal(sig)
		}
	}
}

// writeText answers as FastAPI's PlainTextResponse: the text, no newline.
func writeText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, text)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeText(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// invalid answers a body FastAPI could not validate.
func invalid(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"detail": []map[string]any{{"type": "value_error", "loc": []string{"body"}, "msg": err.Error()}},
	})
}

// hostCommand is the Command of a server with no sandbox: paths of this
// machine, "~" the user's home, the interpreter behind a shim.
func hostCommand(dir string, argv []string) (*spawn.Cmd, error) {
	var err error
	switch dir {
	case "~", "":
		dir, err = os.UserHomeDir()
	default:
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("not a directory: %s", dir)
	}
	path, err := interpreter(argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // its own session: not the emulator's terminal
	return spawn.New(spawn.Host(cmd)), nil
}
