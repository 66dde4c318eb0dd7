package transfer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Put writes r to remote, a file's path, creating its parents and
// replacing the file there, without ever leaving half a file at remote:
// the bytes go to a temporary name in remote's directory
// (.NAME.abx-RANDOM), which envd's Move renames onto remote once they are
// all there. When anything fails, Ctrl-C included, the temporary file is
// removed, remote is as it was, and so are its parents: the directories
// the upload made for it are removed again while they hold nothing else.
//
// A directory at remote is refused before anything is sent (E1002): the
// bytes need a file's path. So is a file where a parent must be.
//
// The temporary file is in the same directory so that the rename stays on
// one file system, where it is atomic, and so that the upload, which
// creates missing parents, creates remote's.
func Put(ctx context.Context, rm Remote, remote string, r io.Reader) error {
	made, _, err := prepare(ctx, rm, remote)
	if err != nil {
		return err
	}
	_, err = put(ctx, rm, remote, r, nil)
	if err != nil && made != "" {
		undo(ctx, rm, made)
	}
	return err
}

// CheckRemotePath refuses a sandbox path before anything is sent: an
// empty one, and one that is not UTF-8, which envd's file service cannot
// carry (its paths are protobuf strings; docs/files.md, "Paths").
func CheckRemotePath(p string) error {
	switch {
	case p == "":
		return abxerr.New(abxerr.InvalidInput, "empty path").WithHint("give an absolute path, or one relative to the user's home")
	case !utf8.ValidString(p):
		return abxerr.New(abxerr.InvalidInput, "the path %q is not UTF-8: envd cannot name it", p).
			WithHint("envd's file service names files in UTF-8 only")
	}
	return nil
}

// prepare checks remote before an upload to it, and returns the first of
// its parents that does not exist, which the upload will make ("" when
// they all do), and the file the upload replaces (nil when there is
// none).
func prepare(ctx context.Context, rm Remote, remote string) (string, *envd.Entry, error) {
	if err := CheckRemotePath(remote); err != nil {
		return "", nil, err
	}
	e, err := rm.Stat(ctx, remote)
	switch {
	case err == nil && e.Type == "dir":
		return "", nil, abxerr.New(abxerr.InvalidInput, "cannot write %s: it is a directory", remote).
			WithHint("nothing was sent; give the path of a file (%s)", path.Join(remote, "NAME"))
	case err == nil:
		return "", &e, nil
	case !isNotFound(err):
		return "", nil, err
	}
	made, err := firstMissing(ctx, rm, path.Dir(remote))
	return made, nil, err
}

// firstMissing is the first of dir and its parents, from the top, that
// does not exist ("" when dir does); a file where a directory must be is
// refused.
func firstMissing(ctx context.Context, rm Remote, dir string) (string, error) {
	missing := ""
	for {
		e, err := rm.Stat(ctx, dir)
		switch {
		case isNotFound(err):
			missing = dir
		case err != nil:
			return "", err
		case e.Type != "dir":
			return "", abxerr.New(abxerr.InvalidInput, "cannot write in %s: it is not a directory", dir).
				WithHint("nothing was sent")
		default:
			return missing, nil
		}
		up := path.Dir(dir)
		if up == dir {
			return missing, nil
		}
		dir = up
	}
}

// put is Put once remote is known to take a file, and returns the file
// as envd's Move describes it. before, when not nil, is given the
// temporary file's path once its bytes are all there, before it is
// renamed onto remote: what it fails fails the upload.
func put(ctx context.Context, rm Remote, remote string, r io.Reader, before func(context.Context, string) error) (envd.Entry, error) {
	tmp, err := tempName(remote)
	if err != nil {
		return envd.Entry{}, err
	}
	var moved envd.Entry
	err = rm.Write(ctx, tmp, r)
	if err == nil && before != nil {
		err = before(ctx, tmp)
	}
	if err == nil {
		moved, err = rm.Move(ctx, tmp, remote)
		if reason, ok := envd.ReasonOf(err); ok {
			// The rename onto remote failed: remote is what it refused.
			e := *abxerr.From(err)
			e.Message = abxerr.Cut(remote) + ": " + reason
			err = &e
		}
	}
	if err == nil {
		return moved, nil
	}
	// The caller's context may be what failed: the clean-up gets one of
	// its own, short, so that Ctrl-C does not wait long for it.
	cctx, cancel := cleanupContext(ctx)
	defer cancel()
	if ctx.Err() != nil {
		removeLate(cctx, rm, tmp)
	} else {
		_ = rm.Remove(cctx, tmp)
	}
	return envd.Entry{}, nameDestination(err, tmp, remote)
}

// lateChecks and lateEvery bound the wait for a temporary file an
// interrupted upload's server makes after its removal: its handler runs on
// after the connection broke, and may only then open the file the part's
// header named (envd writes as it reads, and keeps what it got).
const (
	lateChecks = 4
	lateEvery  = 250 * time.Millisecond
)

// removeLate removes tmp once it is there, if it is or comes within the
// bound. Once made and removed it stays away: the server writes to the
// file it opened.
func removeLate(ctx context.Context, rm Remote, tmp string) {
	for i := range lateChecks {
		if i > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(lateEvery):
			}
		}
		_, err := rm.Stat(ctx, tmp)
		if err == nil {
			_ = rm.Remove(ctx, tmp)
			return
		}
		if !isNotFound(err) {
			_ = rm.Remove(ctx, tmp)
			return
		}
	}
}

// cleanupWait bounds the removal of a failed upload's temporary file.
const cleanupWait = 5 * time.Second

func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupWait)
}

// undo removes made, a directory an upload that failed made (with its
// parents), when it holds nothing but directories: what another writer
// put there meanwhile stays.
func undo(ctx context.Context, rm Remote, made string) {
	cctx, cancel := cleanupContext(ctx)
	defer cancel()
	list, err := rm.ListDir(cctx, made, maxDepth)
	if err != nil {
		return
	}
	for _, e := range list {
		if e.Type != "dir" || isLink(e) {
			return
		}
	}
	_ = rm.Remove(cctx, made)
}

// isNotFound reports whether err says a path is not there.
func isNotFound(err error) bool {
	var e *abxerr.Error
	return errors.As(err, &e) && e.Code == abxerr.NotFound
}

// isAlreadyDir reports whether MakeDir refused a directory that exists.
func isAlreadyDir(err error) bool {
	return err != nil && envd.IsAlreadyExists(err)
}

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
