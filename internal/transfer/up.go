package transfer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

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

// Put writes r to remote, creating its parents and replacing what was
// there, without ever leaving half a file at remote: the bytes go to a
// temporary name in remote's directory (.NAME.abx-RANDOM), which envd's
// Move renames onto remote once they are all there. When anything fails,
// Ctrl-C included, the temporary file is removed and remote is as it was.
//
// The temporary file is in the same directory so that the rename stays on
// one file system, where it is atomic, and so that the upload, which
// creates missing parents, creates remote's.
func Put(ctx context.Context, rm Remote, remote string, r io.Reader) error {
	tmp, err := tempName(remote)
	if err != nil {
		return err
	}
	err = rm.Write(ctx, tmp, r)
	if err == nil {
		_, err = rm.Move(ctx, tmp, remote)
	}
	if err == nil {
		return nil
	}
	// The caller's context may be what failed: the clean-up gets one of
	// its own, short, so that Ctrl-C does not wait long for it.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWait)
	defer cancel()
	_ = rm.Remove(cctx, tmp)
	return nameDestination(err, tmp, remote)
}

// cleanupWait bounds the removal of a failed upload's temporary file.
const cleanupWait = 5 * time.Second

// maxTempBase keeps a temporary name within the 255 bytes a file name may
// have, with room for the dot and the suffix.
const maxTempBase = 200

// tempName is remote's temporary name: in the same directory, hidden,
// unique.
func tempName(remote string) (string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", abxerr.New(abxerr.Internal, "abx failed: %v", err)
	}
	dir, base := path.Split(remote)
	if len(base) > maxTempBase {
		// Cut at a character's start: a path that is not UTF-8 cannot
		// be sent.
		cut := maxTempBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return dir + "." + base + ".abx-" + hex.EncodeToString(rnd[:]), nil
}

// nameDestination makes an error about the temporary file name remote,
// the path the user gave, which is all they know of.
func nameDestination(err error, tmp, remote string) error {
	var e *abxerr.Error
	if !errors.As(err, &e) {
		return err
	}
	tmpBase, base := path.Base(tmp), path.Base(remote)
	out := *e
	out.Message = strings.ReplaceAll(e.Message, tmpBase, base)
	out.Hint = strings.ReplaceAll(e.Hint, tmpBase, base)
	return &out
}
