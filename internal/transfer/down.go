package transfer

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// maxDepth is how deep a tree download lists: all of it, in practice.
const maxDepth = 1 << 16

// CopyDown copies a remote file to local (into it, under the file's name,
// when local is a directory), or with recursive a remote directory tree to
// local (into it, under the tree's name, when local is a directory; a
// tree named DIR/. gives its contents, merged into local). The sandbox's
// answers decide local paths, so they are checked first: a name or a
// listed path that would land outside local is refused before anything is
// written (docs/reliability.md, "Copying trees safely").
func (c *Copier) CopyDown(ctx context.Context, remote, local string, recursive bool) (Result, error) {
	res := Result{Local: local, Remote: remote}
	if err := CheckRemotePath(remote); err != nil {
		return res, err
	}
	// A single file's directory must exist, since its temporary file goes
	// there: one that does not is the user's mistake, said before any
	// request.
	if st, err := os.Stat(local); !recursive && (err != nil || !st.IsDir()) {
		if err := CheckWritable(local); err != nil {
			return res, err
		}
	}
	e, err := c.Remote.Stat(ctx, remote)
	if err != nil {
		return res, err
	}
	if e.Type != "dir" {
		if st, err := os.Stat(local); err == nil && st.IsDir() {
			name, err := localName(e.Name)
			if err != nil {
				return res, abxerr.New(abxerr.BadResponse, "the sandbox named %s:%s %q, which is not a file name", c.Sandbox, remote, e.Name).
					WithHint("nothing was written; give a file name to copy it to: %s", filepath.Join(local, "NAME"))
			}
			local = filepath.Join(local, name)
		}
		res.Local = local
		if err := c.download(ctx, remote, local, downPerm(e)); err != nil {
			return res, err
		}
		res.Files = 1
		return res, nil
	}
	if !recursive {
		return res, abxerr.New(abxerr.InvalidInput, "%s:%s is a directory", c.Sandbox, remote).WithHint("add -r to copy directories")
	}
	res.Tree = true
	if st, err := os.Stat(local); err == nil && st.IsDir() && !remoteContents(remote) {
		name, err := localName(e.Name)
		if err != nil {
			return res, abxerr.New(abxerr.BadResponse, "the sandbox named %s:%s %q, which is not a file name", c.Sandbox, remote, e.Name).
				WithHint("nothing was written; copy its contents with %s:%s/. %s", c.Sandbox, strings.TrimSuffix(remote, "/"), local)
		}
		local = filepath.Join(local, name)
		res.Local = local
	}
	existed := false
	if st, err := os.Stat(local); err == nil {
		if !st.IsDir() {
			return res, abxerr.New(abxerr.InvalidInput, "cannot copy the directory %s:%s onto the file %s", c.Sandbox, remote, local).
				WithHint("nothing was written; name a directory, or a path that does not exist yet")
		}
		existed = true
	}
	list, err := c.Remote.ListDir(ctx, remote, maxDepth)
	if err != nil {
		return res, err
	}
	steps, skipped, err := planDown(listingRoot(e, list), local, list)
	for _, p := range skipped {
		res.Skipped = append(res.Skipped, c.skipDown(p))
	}
	if err != nil {
		return res, err
	}
	top := downPerm(e)
	if !existed {
		err := os.MkdirAll(filepath.Dir(local), 0o755)
		if err == nil {
			err = os.Mkdir(local, openMode(top))
		}
		if err != nil {
			return res, abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", local, LocalReason(err))
		}
	}
	root, err := os.OpenRoot(local)
	if err != nil {
		return res, abxerr.New(abxerr.InvalidInput, "cannot write in %s: %v", local, LocalReason(err))
	}
	defer func() { _ = root.Close() }()
	// What is made closed to its owner is closed however the copy ends.
	var closed closedDirs
	defer func() { closed.close(root) }()
	if !existed {
		closed.note(root, ".", top)
	}
	if existed {
		if err := c.checkObstacles(root, local, steps); err != nil {
			return res, err
		}
	}
	for _, s := range steps {
		if s.dir {
			if err := c.makeDirIn(root, s, &closed); err != nil {
				return res, err
			}
			continue
		}
		if err := root.MkdirAll(filepath.Dir(s.rel), 0o755); err != nil {
			return res, abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", filepath.Dir(s.local), LocalReason(err))
		}
		err := c.downloadIn(ctx, root, s.remote, s.rel, s.local, s.perm)
		if isDirectoryAnswer(err) {
			// Listed as a file, fetched as a directory: a link to one that
			// the listing did not mark (or the tree changed under it).
			res.Skipped = append(res.Skipped, c.skipDown(s.remote))
			continue
		}
		if err != nil {
			return res, err
		}
		res.Files++
	}
	return res, nil
}

// skipDown is a remote path a tree download leaves out: links are not
// recreated on this machine, and devices, sockets and pipes have nothing
// to copy.
func (c *Copier) skipDown(p string) Skip {
	return Skip{Path: c.Sandbox + ":" + p, Reason: skipDownLink}
}

// remoteContents reports whether a remote tree is named for its contents
// (DIR/., ., /), which merge into the destination.
func remoteContents(remote string) bool {
	return remote == "." || strings.HasSuffix(remote, "/.") || path.Clean(remote) == "/"
}

// isDirectoryAnswer reports whether a download was refused because the
// path is a directory: envd answers that, and nothing else abx can send
// it, with a 400.
func isDirectoryAnswer(err error) bool {
	var e *abxerr.Error
	return errors.As(err, &e) && e.Status == http.StatusBadRequest
}

// downloadIn is Download inside the destination tree: the temporary file
// and the rename both resolve against root, so that a symbolic link in the
// destination cannot lead a file out of it.
func (c *Copier) downloadIn(ctx context.Context, root *os.Root, remote, rel, shown string, perm Perm) error {
	return writeIn(root, rel, shown, perm, func(w io.Writer) error {
		m := c.meter(remote, 0)
		defer m.Done()
		_, err := c.Remote.Read(ctx, remote, m.Writer(w))
		return err
	})
}

// writeIn is writeFile for the file rel below root (shown is its path,
// for messages).
func writeIn(root *os.Root, rel, shown string, perm Perm, fill func(io.Writer) error) error {
	cannot := func(err error) error {
		return abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", shown, LocalReason(err)).
			WithHint("choose a destination in a directory you can write to")
	}
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".abx-"+rand.Text())
	mode := fs.FileMode(0o600)
	if perm.set {
		mode = perm.bits // cut by the umask, as cp's
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return cannot(err)
	}
	if !perm.set {
		// An ordinary file's mode, as WriteFile gives.
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = fill(f)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cannot(cerr)
	}
	if err == nil {
		if rerr := root.Rename(tmp, rel); rerr != nil {
			err = cannot(rerr)
		}
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// checkObstacles refuses, before anything is written, a tree that the
// existing destination cannot take: a file where a directory goes or the
// other way round, or a symbolic link in the destination that leads out
// of it.
func (c *Copier) checkObstacles(root *os.Root, local string, steps []step) error {
	for _, s := range steps {
		var st fs.FileInfo
		var err error
		if s.dir {
			st, err = root.Stat(s.rel) // a link to a directory inside local is one
		} else {
			st, err = root.Lstat(s.rel) // the rename replaces a file or a link
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
		case s.dir && !st.IsDir():
			err = errors.New("not a directory")
		case !s.dir && st.IsDir():
			err = errors.New("is a directory")
		default:
			continue
		}
		return abxerr.New(abxerr.InvalidInput, "cannot copy %s:%s to %s: %v", c.Sandbox, s.remote, s.local, LocalReason(err)).
			WithHint("nothing was written: abx writes only inside %s, and not through links that lead out of it", local)
	}
	return nil
}

// step is one entry of a tree download: a directory to create, or a file
// to download. rel is local's path below the destination.
type step struct {
	remote, local, rel string
	dir                bool
	perm               Perm // what the listing gives its local copy (downPerm)
}

// planDown maps a listing of the remote directory root onto local. Every
// entry must name a path strictly inside root, and so a local one strictly
// inside local, once and under the name it is listed with; one that does
// not (.., an absolute path elsewhere, an empty or "." name, a path listed
// twice or below a file) refuses the whole listing: a sandbox is not
// trusted to choose where files land on this machine. Symbolic links are
// skipped: following them could copy what lies outside the tree, or loop.
// So are devices, sockets and pipes, which have no contents to copy.
func planDown(root, local string, list []envd.Entry) (steps []step, skipped []string, err error) {
	kinds := map[string]bool{} // local path: a directory
	for _, item := range list {
		rel, ok := relInside(root, item)
		if !ok {
			return nil, nil, badEntry(item.Path, root, local)
		}
		lp, err := filepath.Localize(rel)
		if err != nil {
			return nil, nil, badEntry(item.Path, root, local)
		}
		target := filepath.Join(local, lp)
		if back, err := filepath.Rel(local, target); err != nil || back == "." || !filepath.IsLocal(back) {
			return nil, nil, badEntry(item.Path, root, local)
		}
		if _, twice := kinds[lp]; twice {
			return nil, nil, badEntry(item.Path, root, local)
		}
		switch {
		case isLink(item):
			skipped = append(skipped, item.Path)
		case item.Type == "dir":
			steps = append(steps, step{remote: item.Path, local: target, rel: lp, dir: true, perm: downPerm(item)})
		case item.Type == "file":
			steps = append(steps, step{remote: item.Path, local: target, rel: lp, perm: downPerm(item)})
		default:
			skipped = append(skipped, item.Path)
		}
		kinds[lp] = item.Type == "dir" && !isLink(item)
	}
	// Only a directory holds entries: one listed below a file or a link
	// would be written through it, or make a directory of its name.
	for lp := range kinds {
		for up := filepath.Dir(lp); up != "."; up = filepath.Dir(up) {
			if dir, listed := kinds[up]; listed && !dir {
				return nil, nil, badEntry(path.Join(root, filepath.ToSlash(lp)), root, local)
			}
		}
	}
	return steps, skipped, nil
}

// isLink reports whether envd described a symbolic link. envd gives a link
// its target's type (file or dir) and names the target in symlink_target;
// 0.2.10 leaves that out for a link it cannot resolve, whose permissions
// still start with L (the mode string of a link). The protocol's symlink
// type is taken too, though no envd sends it.
func isLink(e envd.Entry) bool {
	return e.Type == "symlink" || e.SymlinkTarget != "" || strings.HasPrefix(e.Permissions, "L")
}

// listingRoot is the directory a listing of e names its entries under: the
// path asked for, as most envd versions name them, or the directory that
// path resolves to through links, as some walk it. The resolved one is
// taken only when every entry lies under it and it is e's own link target
// or a directory of e's name, so a listing that mixes places is still
// refused whole.
func listingRoot(e envd.Entry, list []envd.Entry) string {
	if len(list) == 0 || allInside(e.Path, list) {
		return e.Path
	}
	resolved := e.SymlinkTarget
	if resolved == "" {
		// The parent of the entry nearest the top.
		for _, item := range list {
			if d := path.Dir(path.Clean(item.Path)); resolved == "" || len(d) < len(resolved) {
				resolved = d
			}
		}
		if path.Base(resolved) != path.Base(path.Clean(e.Path)) {
			return e.Path
		}
	}
	if allInside(resolved, list) {
		return resolved
	}
	return e.Path
}

func allInside(root string, list []envd.Entry) bool {
	for _, item := range list {
		if _, ok := relInside(root, item); !ok {
			return false
		}
	}
	return true
}

// relInside is an entry's path relative to root, when it lies strictly
// inside it and ends in the entry's name. envd lists absolute, clean
// paths; a ".." anywhere is refused even where it would resolve inside, as
// no envd sends one.
func relInside(root string, item envd.Entry) (string, bool) {
	if _, err := localName(item.Name); err != nil || root == "" {
		return "", false
	}
	for _, elem := range strings.Split(item.Path, "/") {
		if elem == ".." {
			return "", false
		}
	}
	prefix := path.Clean(root) + "/"
	if prefix == "//" {
		prefix = "/"
	}
	rel, ok := strings.CutPrefix(path.Clean(item.Path), prefix)
	if !ok || rel == "" || rel == "." || !fs.ValidPath(rel) || path.Base(rel) != item.Name {
		return "", false
	}
	return rel, true
}

// localName checks that a name the sandbox gave is one element of a local
// path: not empty, not . or .., with no separator (and, on Windows, no
// reserved name).
func localName(name string) (string, error) {
	if name == "." || strings.Contains(name, "/") {
		return "", fs.ErrInvalid
	}
	return filepath.Localize(name)
}

// badEntry refuses what the sandbox listed: abx cannot use it.
func badEntry(entry, root, local string) error {
	return abxerr.New(abxerr.BadResponse, "the sandbox listed %q under %s, which is not a path inside it", entry, root).
		WithHint("nothing was written: abx writes only inside %s", local)
}
