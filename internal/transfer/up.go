package transfer

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Result is what a copy did, for the command to tell people.
type Result struct {
	// Tree is true when a directory was copied, file by file.
	Tree bool
	// Files counts the files copied; Links the symbolic links made.
	Files, Links int
	// Local and Remote are where the copy went or came from, after the
	// destination rules (docs/files.md, "Where a copy lands"): a file
	// copied into a directory lands there under its own name, a tree
	// copied into an existing directory becomes a directory of its name
	// in it.
	Local, Remote string
	// Skipped are what the copy left out, and why: the links of a tree
	// download, which are not recreated on this machine; the links of an
	// upload that lead out of the tree, and names envd cannot carry.
	Skipped []Skip
}

// CopyUp copies a local file to remote, or with recursive a local
// directory tree, directories included (empty ones too). remote is
// where it goes, as cp decides: an existing directory, or a path ending
// in "/", receives the file (or the tree) under its own name; a tree
// named DIR/. gives its contents, merged into remote.
func (c *Copier) CopyUp(ctx context.Context, local, remote string, recursive bool) (Result, error) {
	res := Result{Local: local, Remote: remote}
	if err := CheckRemotePath(remote); err != nil {
		return res, err
	}
	st, err := os.Stat(local)
	if err != nil {
		return res, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", local, LocalReason(err))
	}
	if st.IsDir() && !recursive {
		return res, abxerr.New(abxerr.InvalidInput, "%s is a directory", local).WithHint("add -r to copy directories")
	}
	if st.IsDir() {
		return c.treeUp(ctx, local, remote)
	}
	// Checked before the sandbox is asked anything.
	fh, err := OpenLocal(local)
	if err != nil {
		return res, err
	}
	defer func() { _ = fh.Close() }()
	into, err := c.intoDir(ctx, remote)
	if err != nil {
		return res, err
	}
	if into {
		res.Remote = path.Join(remote, filepath.Base(local))
	}
	if _, err := c.send(ctx, fh, res.Remote, localPerm(st), true); err != nil {
		return res, err
	}
	res.Files = 1
	return res, nil
}

// intoDir tells whether remote is a directory to copy into: it ends in
// "/", or the sandbox has a directory there.
func (c *Copier) intoDir(ctx context.Context, remote string) (bool, error) {
	if strings.HasSuffix(remote, "/") {
		return true, nil
	}
	e, err := c.Remote.Stat(ctx, remote)
	switch {
	case isNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return e.Type == "dir", nil
}

// send uploads the open file f to remote, with a meter: through
// sendFile, with the bits perm asks for, or when remote's directory is
// known to be there (a tree's), without its checks of the destination
// and leaving the bits to the tree's end.
func (c *Copier) send(ctx context.Context, f *os.File, remote string, perm Perm, check bool) (envd.Entry, error) {
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	m := c.meter(remote, size)
	defer m.Done()
	if check {
		return c.sendFile(ctx, remote, m.Reader(f), perm)
	}
	return put(ctx, c.Remote, remote, m.Reader(f), nil)
}

// treeUp uploads the tree local. The whole tree is read first (planUp):
// nothing is sent before every directory and file in it is known to be
// readable. Then the destination: a file there refuses the copy, an
// existing directory takes the tree under its name (or its contents, for
// DIR/.), and what does not exist is made. Directories are made parents
// first, files uploaded each through Put, and the links made last, in one
// go (Links). A copy that fails before anything was copied removes the
// directories it made.
func (c *Copier) treeUp(ctx context.Context, local, remote string) (Result, error) {
	res := Result{Tree: true, Local: local, Remote: remote}
	root, err := os.OpenRoot(local)
	if err != nil {
		return res, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", local, LocalReason(err))
	}
	defer func() { _ = root.Close() }()
	plan, err := planUp(root, local)
	res.Skipped = plan.skipped
	if err != nil {
		return res, err
	}
	res.Remote, err = c.treeDestination(ctx, local, remote)
	if err != nil {
		return res, err
	}
	made, err := firstMissing(ctx, c.Remote, res.Remote)
	if err != nil {
		return res, err
	}
	err = c.sendTree(ctx, root, local, res.Remote, plan, &res)
	if err != nil && made != "" && res.Files == 0 && res.Links == 0 {
		undo(ctx, c.Remote, made)
	}
	return res, err
}

// treeDestination is where the tree local goes for remote: remote itself
// when it does not exist, or local's contents are asked for (DIR/.);
// remote/NAME when remote is a directory. A file there refuses the copy
// before anything is sent.
func (c *Copier) treeDestination(ctx context.Context, local, remote string) (string, error) {
	dest := remote
	for {
		e, err := c.Remote.Stat(ctx, dest)
		switch {
		case isNotFound(err):
			return dest, nil
		case err != nil:
			return "", err
		case e.Type != "dir":
			return "", abxerr.New(abxerr.InvalidInput, "cannot copy the directory %s onto the file %s:%s", local, c.Sandbox, dest).
				WithHint("nothing was sent; name a directory, or a path that does not exist yet")
		case dest != remote || localContents(local):
			return dest, nil // merged into it
		}
		next := path.Join(remote, localBase(local))
		if next == remote {
			return dest, nil // a tree without a name of its own ("/"): its contents, as DIR/.
		}
		dest = next
	}
}

// sendTree makes the planned tree at dest: its directories, its files,
// then its links, and last the bits of what it made (treeModes).
func (c *Copier) sendTree(ctx context.Context, root *os.Root, local, dest string, plan upPlan, res *Result) error {
	var modes treeModes
	top, err := c.Remote.MakeDir(ctx, dest)
	if err == nil {
		modes.dir(".", top, statPerm(root, "."))
	}
	if isAlreadyDir(err) {
		top, err = c.Remote.Stat(ctx, dest)
	}
	if err != nil {
		return err
	}
	for _, d := range plan.dirs {
		// A directory already there (a copy onto an earlier one) is fine,
		// and keeps its bits.
		e, err := c.Remote.MakeDir(ctx, path.Join(dest, d))
		switch {
		case err == nil:
			modes.dir(d, e, statPerm(root, d))
		case !isAlreadyDir(err):
			return err
		}
	}
	for _, p := range plan.files {
		f, err := openIn(root, local, p)
		if err != nil {
			return err
		}
		want := Keep
		if st, err := f.Stat(); err == nil {
			want = localPerm(st)
		}
		e, err := c.send(ctx, f, path.Join(dest, p), Keep, false)
		_ = f.Close()
		if err != nil {
			return err
		}
		modes.file(p, e, want)
		res.Files++
	}
	// Made below the tree's own path, as envd named it: a link's path is
	// relative to it, whatever the user's home is.
	at := top.Path
	if at == "" {
		at = dest
	}
	if err := c.sendLinks(ctx, at, local, plan, res); err != nil {
		return err
	}
	if set := modes.all(); len(set) > 0 && c.Modes != nil {
		return c.Modes(ctx, at, set)
	}
	return nil
}

// sendLinks makes the planned links below at, or leaves them out, each
// with a note, when the sandbox cannot make links.
func (c *Copier) sendLinks(ctx context.Context, at, local string, plan upPlan, res *Result) error {
	if len(plan.links) == 0 {
		return nil
	}
	if c.Links == nil {
		for _, l := range plan.links {
			res.Skipped = append(res.Skipped, Skip{filepath.Join(local, filepath.FromSlash(l.Path)), skipNoLinks})
		}
		return nil
	}
	if err := c.Links(ctx, at, plan.links); err != nil {
		return err
	}
	res.Links = len(plan.links)
	return nil
}

// statPerm is the bits the directory p of the local tree gives its copy.
func statPerm(root *os.Root, p string) Perm {
	st, err := root.Lstat(filepath.FromSlash(p))
	if err != nil {
		return Keep
	}
	return localPerm(st)
}

// localContents reports whether a local tree is named for its contents
// (DIR/., or .), which merge into the destination as docker cp's do.
func localContents(local string) bool {
	sep := string(filepath.Separator)
	return local == "." || strings.HasSuffix(local, sep+".") || strings.HasSuffix(local, "/.")
}

// localBase is the name a local tree has in the destination: its own,
// that of the directory it is when named by a path like "..".
func localBase(local string) string {
	if abs, err := filepath.Abs(local); err == nil {
		local = abs
	}
	return filepath.Base(local)
}
