//go:build unix

package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/runfile"
)

// A state dir holds, all private to the user (0700 / 0600):
//
//	api-key          the key, kept so that exported settings survive a restart
//	sandboxes.json   the sandboxes' records: IDs, templates, states, deadlines, metadata, tokens
//	sandboxes/<id>/  each sandbox's files
//	emulator.json    while it runs: its URL, pid and key, for 'abx emulator env'
//
// Processes and interpreter variables live in memory and do not survive.
const (
	apiKeyFile    = "api-key"
	sandboxesFile = "sandboxes.json"
	runtimeFile   = "emulator.json"
)

type stateDir struct{ dir string }

// openStateDir makes dir if needed and refuses it while another emulator
// serves it: two would fight over the same sandboxes.
func openStateDir(dir string) (*stateDir, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sandboxes"), 0o700); err != nil {
		return nil, fmt.Errorf("cannot use state dir %s: %w", dir, err)
	}
	if rt, err := ReadRuntime(dir); err == nil {
		return nil, fmt.Errorf("another emulator (pid %d) serves state dir %s at %s", rt.PID, dir, rt.URL)
	}
	return &stateDir{dir: dir}, nil
}

func (s *stateDir) path(name string) string { return filepath.Join(s.dir, name) }

func (s *stateDir) apiKey() string {
	b, err := os.ReadFile(s.path(apiKeyFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (s *stateDir) saveAPIKey(key string) error {
	if s.apiKey() == key {
		return nil
	}
	return runfile.WritePrivate(s.path(apiKeyFile), []byte(key+"\n"))
}

func (s *stateDir) loadSandboxes() ([]manager.Sandbox, error) {
	b, err := os.ReadFile(s.path(sandboxesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []manager.Sandbox
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w (move it away to start afresh)", s.path(sandboxesFile), err)
	}
	return list, nil
}

func (s *stateDir) saveSandboxes(list []manager.Sandbox) error {
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return runfile.WritePrivate(s.path(sandboxesFile), append(b, '\n'))
}

// removeOrphans deletes the directories of sandboxes that are no more
// (killed or expired while the records were not saved).
func (s *stateDir) removeOrphans(live []manager.Sandbox) {
	keep := map[string]bool{}
	for _, b := range live {
		keep[b.ID] = true
	}
	entries, _ := os.ReadDir(s.path("sandboxes"))
	for _, e := range entries {
		if !keep[e.Name()] {
			_ = os.RemoveAll(filepath.Join(s.path("sandboxes"), e.Name()))
		}
	}
}

// Runtime is what a running emulator tells 'abx emulator env'.
type Runtime struct {
	URL    string `json:"url"`
	PID    int    `json:"pid"`
	APIKey string `json:"apiKey"`
	// NotIsolated says why sandboxes have no views of their own; empty
	// when they have.
	NotIsolated string `json:"notIsolated,omitempty"`
}

// Env is the environment that points abx at the emulator.
func (r *Runtime) Env() []string { return envFor(r.URL, r.APIKey) }

func (s *stateDir) writeRuntime(r Runtime) error { return runfile.Write(s.path(runtimeFile), r) }

func (s *stateDir) removeRuntime() { _ = os.Remove(s.path(runtimeFile)) }

// ErrNotRunning says no emulator serves a state dir.
var ErrNotRunning = errors.New("no emulator is running")

// ReadRuntime finds the emulator serving dir, or ErrNotRunning. A file
// left by an emulator that died is ignored.
func ReadRuntime(dir string) (*Runtime, error) {
	var r Runtime
	err := runfile.Read(filepath.Join(dir, runtimeFile), &r, r.alive)
	if errors.Is(err, runfile.ErrNotRunning) {
		return nil, ErrNotRunning
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// alive is true when the process exists and something listens on the
// URL: a pid alone may have been reused since.
func (r *Runtime) alive() bool {
	if r.PID <= 0 {
		return false
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return runfile.Listening(r.URL)
}
