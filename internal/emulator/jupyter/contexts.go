//go:build unix

package jupyter

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// A context's working directory follows the fake envd's path rule (real
// paths, confined to the sandbox directory, relative ones under the home).
// With no cwd a context works in the sandbox user's home and shows
// /home/user, as the real server does; a cwd that is given is resolved by
// that rule and shown as given.
const homeCwd = "/home/user"

var (
	errGone = errors.New("context is gone")
	errCwd  = errors.New("working directory unusable")
)

// codeContext is one context: the directory it works in, the kernel that
// runs its code (nil until first use and after a restart), and the turn
// that lets one execution run at a time, like the real server's lock.
type codeContext struct {
	id, language string
	cwd          string // as shown
	path         string // what Resolve gets
	turn         chan struct{}

	mu   sync.Mutex
	k    *kernel
	gone bool // deleted, or the server closed
}

func newContext(language, cwd string) *codeContext {
	cx := &codeContext{id: newID(), language: language, cwd: cwd, path: cwd, turn: make(chan struct{}, 1)}
	if cwd == "" {
		cx.cwd, cx.path = homeCwd, "~"
	}
	return cx
}

// newID makes an id shaped like a Jupyter kernel's, a random UUID.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (cx *codeContext) current() *kernel {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	return cx.k
}

// stop kills the kernel; the execution in progress ends with reason. A
// stopped context starts a new kernel on next use, unless gone.
func (cx *codeContext) stop(gone bool, reason []byte) {
	cx.mu.Lock()
	k := cx.k
	cx.k = nil
	cx.gone = cx.gone || gone
	cx.mu.Unlock()
	if k != nil {
		k.kill(reason)
	}
}

// kernel returns the context's kernel, starting one when it has none or
// when its process died (Jupyter restarts a dead kernel by itself).
func (s *Server) kernel(cx *codeContext) (*kernel, error) {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.gone {
		return nil, errGone
	}
	if cx.k != nil && !cx.k.isEnded() {
		return cx.k, nil
	}
	argv, ok := s.argv(cx.language)
	if !ok {
		return nil, errors.New(noKernel(cx.language))
	}
	k, err := startKernel(func() (*spawn.Cmd, error) { return s.opts.Command(cx.path, argv) })
	if errors.Is(err, errCwd) {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	cx.k = k
	return k, nil
}

// kernelError answers a kernel that could not be had.
func kernelError(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, errGone):
		writeText(w, http.StatusNotFound, "Context "+id+" not found")
	case errors.Is(err, errCwd):
		writeText(w, http.StatusInternalServerError, "Failed to set working directory")
	default:
		writeText(w, http.StatusInternalServerError, "Failed to create context: "+err.Error())
	}
}

func (s *Server) add(cx *codeContext) *codeContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addLocked(cx)
}

func (s *Server) addLocked(cx *codeContext) *codeContext {
	if s.closed {
		cx.gone = true
	}
	s.contexts = append(s.contexts, cx)
	s.byID[cx.id] = cx
	return cx
}

func (s *Server) lookup(id string) *codeContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// defaultContext is the default context of language, made on first use:
// the one code given only a language runs in.
func (s *Server) defaultContext(language string) *codeContext {
	s.mu.Lock()
	cx := s.defaults[language]
	s.mu.Unlock()
	if cx != nil {
		return cx
	}
	cx = newContext(language, "")
	s.mu.Lock()
	defer s.mu.Unlock()
	if had := s.defaults[language]; had != nil {
		return had // made meanwhile
	}
	s.defaults[language] = s.addLocked(cx)
	return cx
}

// remove forgets a context. The default python one is replaced at once, so
// that there always is a python context to list and to run code in; the
// default of another language is made again on its next use.
func (s *Server) remove(cx *codeContext) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, cx.id)
	for i, x := range s.contexts {
		if x == cx {
			s.contexts = append(s.contexts[:i], s.contexts[i+1:]...)
			break
		}
	}
	if s.defaults[cx.language] == cx {
		delete(s.defaults, cx.language)
		if cx.language == "python" {
			s.defaults["python"] = s.addLocked(newContext("python", ""))
		}
	}
}

// normalize is the real server's normalize_language.
func normalize(language string) string {
	switch l := strings.ToLower(strings.TrimSpace(language)); l {
	case "":
		return "python"
	case "js":
		return "javascript"
	case "ts":
		return "typescript"
	default:
		return l
	}
}

func noKernel(language string) string {
	return "Failed to create context: no " + language + " kernel in the emulator (it has python, javascript, typescript and bash)"
}

type contextJSON struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Cwd      string `json:"cwd"`
}

func (cx *codeContext) json() contextJSON {
	return contextJSON{ID: cx.id, Language: cx.language, Cwd: cx.cwd}
}

func (s *Server) createContext(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Language string `json:"language"`
		Cwd      string `json:"cwd"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		invalid(w, err)
		return
	}
	language := normalize(req.Language)
	if _, ok := s.argv(language); !ok {
		writeText(w, http.StatusInternalServerError, noKernel(language))
		return
	}
	cx := s.add(newContext(language, req.Cwd))
	if _, err := s.kernel(cx); err != nil {
		s.remove(cx)
		kernelError(w, cx.id, err)
		return
	}
	writeJSON(w, http.StatusOK, cx.json())
}

func (s *Server) listContexts(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	out := make([]contextJSON, 0, len(s.contexts))
	for _, cx := range s.contexts {
		out = append(out, cx.json())
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// restartContext kills the kernel; the next execution starts a fresh one,
// its variables gone and its count back at 1.
func (s *Server) restartContext(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	cx := s.lookup(id)
	if cx == nil {
		writeText(w, http.StatusNotFound, "Context "+id+" not found")
		return
	}
	cx.stop(false, connectionClosed()) // the real server closes its socket first
	writeJSON(w, http.StatusOK, nil)
}

func (s *Server) deleteContext(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	cx := s.lookup(id)
	if cx == nil {
		writeText(w, http.StatusNotFound, "Context "+id+" not found")
		return
	}
	s.remove(cx)
	cx.stop(true, connectionClosed())
	writeJSON(w, http.StatusOK, nil)
}
