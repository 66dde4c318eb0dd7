//go:build unix

package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/emulator/record"
	"github.com/abx-dev/abx/internal/runfile"
)

// A state dir holds, all private to the user (0700 / 0600):
//
//	api-key          the key, kept so that exported settings survive a restart
//	sandboxes.json   the sandboxes' records: IDs, templates, states, deadlines, metadata, tokens
//	sandboxes/<id>/  each sandbox's files
//	emulator.json    while it runs: its URL, pid and key, for 'abx emulator env' (package record)
//
// Processes and interpreter variables live in memory and do not survive.
const (
	apiKeyFile    = "api-key"
	sandboxesFile = "sandboxes.json"
	snapshotsFile = "snapshots.json"
)

type stateDir struct{ dir string }

// openStateDir makes dir if needed and refuses it while another emulator
// serves it: two would fight over the same sandboxes.
func openStateDir(dir string) (*stateDir, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sandboxes"), 0o700); err != nil {
		return nil, fmt.Errorf("cannot use state dir %s: %w", dir, err)
	}
	if rt, err := record.Read(dir); err == nil {
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

func (s *stateDir) loadSnapshots() ([]manager.Snapshot, error) {
	b, err := os.ReadFile(s.path(snapshotsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []manager.Snapshot
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w (move it away to start afresh)", s.path(snapshotsFile), err)
	}
	return list, nil
}

func (s *stateDir) saveSnapshots(list []manager.Snapshot) error {
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return runfile.WritePrivate(s.path(snapshotsFile), append(b, '\n'))
}

// removeOrphanSnapshots drops the snapshots that are no more (deleted or
// expired while the records were not saved) and removes those left half
// taken; a snapshot a clone stands on keeps its files until the clone
// goes (snapshotStore.collect).
func (s *stateDir) removeOrphanSnapshots(live []manager.Snapshot, store *snapshotStore) {
	keep := map[string]bool{}
	for _, sn := range live {
		keep[sn.ID] = true
	}
	entries, _ := os.ReadDir(s.path("snapshots"))
	for _, e := range entries {
		switch {
		case strings.HasSuffix(e.Name(), ".part"):
			_ = os.RemoveAll(filepath.Join(s.path("snapshots"), e.Name()))
		case !keep[e.Name()]:
			_ = os.WriteFile(filepath.Join(s.path("snapshots"), e.Name(), droppedFile), nil, 0o600)
		}
	}
	store.collect()
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

func (s *stateDir) writeRuntime(r record.Runtime) error { return record.Write(s.dir, r) }

func (s *stateDir) removeRuntime() { record.Remove(s.dir) }
