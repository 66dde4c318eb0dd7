package transfer

import (
	"context"
	"io/fs"
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
// local. The sandbox's answers decide local paths, so they are checked
// first: a name or a listed path that would land outside local is refused
// before anything is written.
func (c *Copier) CopyDown(ctx context.Context, remote, local string, recursive bool) (Result, error) {
	res := Result{Local: local}
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
		if err := c.Download(ctx, remote, local); err != nil {
			return res, err
		}
		res.Files = 1
		return res, nil
	}
	if !recursive {
		return res, abxerr.New(abxerr.InvalidInput, "%s:%s is a directory", c.Sandbox, remote).WithHint("add -r to copy directories")
	}
	res.Tree = true
	list, err := c.Remote.ListDir(ctx, remote, maxDepth)
	if err != nil {
		return res, err
	}
	steps, skipped, err := planDown(e.Path, local, list)
	res.Skipped = skipped
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(local, 0o755); err != nil {
		return res, abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", local, LocalReason(err))
	}
	for _, s := range steps {
		dir := s.local
		if !s.dir {
			dir = filepath.Dir(s.local)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return res, abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", s.local, LocalReason(err))
		}
		if s.dir {
			continue
		}
		if err := c.Download(ctx, s.remote, s.local); err != nil {
			return res, err
		}
		res.Files++
	}
	return res, nil
}

// step is one entry of a tree download: a directory to create, or a file
// to download.
type step struct {
	remote, local string
	dir           bool
}

// planDown maps a listing of the remote directory root onto local. Every
// entry must name a path strictly inside root, and so a local one strictly
// inside local; one that does not (.., an absolute path elsewhere, an empty
// or "." name) refuses the whole listing: a sandbox is not trusted to
// choose where files land on this machine. Symbolic links are skipped:
// following them could copy what lies outside the tree, or loop.
func planDown(root, local string, list []envd.Entry) (steps []step, skipped []string, err error) {
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
		switch item.Type {
		case "dir":
			steps = append(steps, step{remote: item.Path, local: target, dir: true})
		case "file":
			steps = append(steps, step{remote: item.Path, local: target})
		case "symlink":
			skipped = append(skipped, item.Path)
		}
	}
	return steps, skipped, nil
}

// relInside is an entry's path relative to root, when it lies strictly
// inside it. envd lists absolute, clean paths; a ".." anywhere is refused
// even where it would resolve inside, as no envd sends one.
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
	if !ok || rel == "" || rel == "." || !fs.ValidPath(rel) {
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
