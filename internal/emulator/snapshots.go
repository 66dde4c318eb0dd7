//go:build unix

package emulator

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/abx-dev/abx/internal/emulator/envd"
)

// snapshotStore keeps the emulator's snapshots (manager.SnapshotStore):
// each a directory of the state dir's snapshots/, a copy of the sandbox's
// directory taken while its processes are frozen, so that it is of one
// moment: its own directories (/home/user, /tmp, /var/tmp, /root) and its
// root's layer (top: /workspace, /usr/local, ...), the work directory of
// that layer apart (docs/snapshots.md). A clone starts as a copy of it.
type snapshotStore struct {
	g   *Gateway
	dir string
}

// Take copies the sandbox's directory into the snapshot's.
func (s *snapshotStore) Take(sandboxID, snapshotID string) error {
	e := s.g.Envd(sandboxID)
	if e == nil {
		return errors.New("the sandbox is gone")
	}
	e.Pause()
	defer e.Resume()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	dst := filepath.Join(s.dir, snapshotID)
	part := dst + ".part"
	_ = os.RemoveAll(part)
	if err := copyTree(filepath.Join(s.g.dir, sandboxID), part, envd.LayersDir); err != nil {
		_ = os.RemoveAll(part)
		return fmt.Errorf("the sandbox's files: %w", err)
	}
	return os.Rename(part, dst)
}

// Drop removes a snapshot's files, in the background.
func (s *snapshotStore) Drop(snapshotID string) {
	go func() { _ = os.RemoveAll(filepath.Join(s.dir, snapshotID)) }()
}

// Clone makes a sandbox's directory from a snapshot's, before the sandbox
// is made (its servers then find its files there). A copy: what it costs
// grows with what the snapshot holds (docs/snapshots.md).
func (s *snapshotStore) Clone(snapshotID, sandboxID string) error {
	src := filepath.Join(s.dir, snapshotID)
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("the snapshot's files: %w", err)
	}
	dst := filepath.Join(s.g.dir, sandboxID)
	_ = os.RemoveAll(dst)
	if err := os.MkdirAll(s.g.dir, 0o700); err != nil {
		return err
	}
	if err := copyTree(src, dst, ""); err != nil {
		_ = os.RemoveAll(dst)
		return fmt.Errorf("the snapshot's files: %w", err)
	}
	return nil
}

// copyTree copies the directory src to dst (which must not exist), all
// but its entry named skip, as cp -a does (owners, modes, times, links,
// extended attributes, an overlay's whiteouts), where this machine's
// file system can, sharing blocks rather than copying them (a reflink).
func copyTree(src, dst, skip string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	args := []string{"-a"}
	if runtime.GOOS == "linux" {
		args = append(args, "--reflink=auto")
	}
	n := len(args)
	for _, e := range entries {
		if e.Name() != skip {
			args = append(args, filepath.Join(src, e.Name()))
		}
	}
	if len(args) > n {
		args = append(args, dst+"/")
		if out, err := exec.Command("cp", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("cp: %w: %s", err, strings.TrimSpace(string(out)))
		}
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm())
}
