package transfer

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Skip is what a copy left out, and why: Path as the user knows it
// (ID:PATH for the sandbox's side, a local path for this machine's).
type Skip struct {
	Path, Reason string
}

// Why a tree upload leaves an entry out (docs/files.md, "Links and odd
// files in an upload").
const (
	skipOut     = "a symbolic link that leads out of the tree"
	skipAbs     = "a symbolic link to an absolute path"
	skipLoop    = "a loop of symbolic links"
	skipSpecial = "a device, socket or pipe"
	skipUTF8    = "its name is not UTF-8, which envd cannot carry"
	skipTarget  = "a symbolic link to a name that is not UTF-8, which envd cannot carry"
	skipNoLinks = "a symbolic link, which this sandbox cannot make"
	// A download leaves out what the listing shows as neither file nor
	// directory (docs/files.md).
	skipDownLink = "a symbolic link or special file"
)

// upPlan is a local tree to upload, read whole before anything is sent.
// Paths are slash-separated, below the tree, parents before children.
type upPlan struct {
	dirs    []string
	files   []string
	links   []envd.Symlink // relative, staying inside the tree
	skipped []Skip
}

// maxLinkHops bounds the links followed to place one link's target, as
// the kernel bounds a path's.
const maxLinkHops = 40

// planUp reads the tree local through root, a handle on it that refuses
// any path leading out of it: every directory must be readable and every
// file open to reading, else the copy is refused before anything is sent
// (E1002). Nothing is followed: a symbolic link is kept as a link when
// its target, relative, stays inside the tree (through the tree's own
// links too), and left out otherwise, as are devices, sockets, pipes and
// names that are not UTF-8.
func planUp(root *os.Root, local string) (upPlan, error) {
	var plan upPlan
	fsys := root.FS()
	shown := func(p string) string { return filepath.Join(local, filepath.FromSlash(p)) }
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", shown(p), LocalReason(err)).
				WithHint("nothing was sent")
		}
		if p == "." {
			return nil
		}
		if !utf8.ValidString(p) {
			plan.skipped = append(plan.skipped, Skip{shown(p), skipUTF8})
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t.IsDir():
			plan.dirs = append(plan.dirs, p)
		case t.IsRegular():
			f, err := root.Open(filepath.FromSlash(p))
			if err != nil {
				return abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", shown(p), LocalReason(err)).
					WithHint("nothing was sent")
			}
			_ = f.Close()
			plan.files = append(plan.files, p)
		case t&fs.ModeSymlink != 0:
			target, why := linkInTree(root, p)
			if why == "" && !utf8.ValidString(target) {
				why = skipTarget // envd's Start carries strings: it could not make the link
			}
			if why != "" {
				plan.skipped = append(plan.skipped, Skip{shown(p), why})
				return nil
			}
			plan.links = append(plan.links, envd.Symlink{Path: p, Target: target})
		default:
			plan.skipped = append(plan.skipped, Skip{shown(p), skipSpecial})
		}
		return nil
	})
	return plan, err
}

// linkInTree reads the link p of the tree and follows its target, one
// component at a time, through the tree's own links: the target as the
// link holds it when it stays inside the tree (or leads nowhere inside
// it), else why it is left out.
func linkInTree(root *os.Root, p string) (string, string) {
	target, err := root.Readlink(filepath.FromSlash(p))
	if err != nil {
		return "", skipOut
	}
	target = filepath.ToSlash(target)
	if path.IsAbs(target) || filepath.IsAbs(target) {
		return "", skipAbs
	}
	var at []string // where the walk is, below the tree
	if dir := path.Dir(p); dir != "." {
		at = strings.Split(dir, "/")
	}
	rest := strings.Split(target, "/")
	for hops := 0; len(rest) > 0; {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return "", skipOut
			}
			at = at[:len(at)-1]
			continue
		}
		next := path.Join(append(append([]string{}, at...), elem)...)
		st, err := root.Lstat(filepath.FromSlash(next))
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			// A file, a directory, or nothing yet: what is not there
			// holds no link, and the rest is taken as written.
			at = append(at, elem)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", skipLoop
		}
		hop, err := root.Readlink(filepath.FromSlash(next))
		if err != nil || path.IsAbs(filepath.ToSlash(hop)) || filepath.IsAbs(hop) {
			return "", skipOut
		}
		rest = append(strings.Split(filepath.ToSlash(hop), "/"), rest...)
	}
	return target, ""
}

// openIn opens the planned file p below root to send it: a file another
// program swapped for something else since the plan (a directory, a link
// out of the tree) is refused, not read.
func openIn(root *os.Root, local, p string) (*os.File, error) {
	shown := filepath.Join(local, filepath.FromSlash(p))
	f, err := root.Open(filepath.FromSlash(p))
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", shown, LocalReason(err))
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		if err == nil {
			err = errors.New("it is no longer a file")
		}
		return nil, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", shown, LocalReason(err))
	}
	return f, nil
}
