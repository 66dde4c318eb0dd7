package transfer

import (
	"context"
	"os"
	"path"
	"path/filepath"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Result is what a copy did, for the command to tell people.
type Result struct {
	// Tree is true when a directory was copied, file by file.
	Tree bool
	// Files counts the files copied.
	Files int
	// Local is the local side. A single file downloaded into an existing
	// directory lands in it under its own name: Local is then that path.
	Local string
	// Skipped are the remote paths a tree download left out: symbolic
	// links, which are not recreated on this machine.
	Skipped []string
}

// CopyUp copies a local file to remote, or with recursive a local
// directory tree into remote, directories included (empty ones too).
func (c *Copier) CopyUp(ctx context.Context, local, remote string, recursive bool) (Result, error) {
	res := Result{Local: local}
	st, err := os.Stat(local)
	if err != nil {
		return res, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", local, LocalReason(err))
	}
	if !st.IsDir() {
		if err := c.Upload(ctx, local, remote); err != nil {
			return res, err
		}
		res.Files = 1
		return res, nil
	}
	if !recursive {
		return res, abxerr.New(abxerr.InvalidInput, "%s is a directory", local).WithHint("add -r to copy directories")
	}
	res.Tree = true
	err = filepath.WalkDir(local, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", p, LocalReason(err))
		}
		rel, _ := filepath.Rel(local, p)
		target := path.Join(remote, filepath.ToSlash(rel))
		if d.IsDir() {
			// envd refuses a directory that exists (E5003): the tree may
			// be copied onto an earlier copy of itself.
			if _, err := c.Remote.MakeDir(ctx, target); err != nil && abxerr.From(err).Code != abxerr.Rejected {
				return err
			}
			return nil
		}
		if err := c.Upload(ctx, p, target); err != nil {
			return err
		}
		res.Files++
		return nil
	})
	return res, err
}
