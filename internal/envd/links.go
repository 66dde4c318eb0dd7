package envd

import "context"

// Symlink is a symbolic link to make: Path, relative to the directory it
// is made in, holds Target.
type Symlink struct {
	Path, Target string
}

// lnScript makes the links its arguments name, target then path, pair by
// pair: a file or a link at a path is replaced, a directory never (ln
// would make the link inside it). It stops at the first it cannot make.
const lnScript = `while [ "$#" -gt 1 ]; do
  if [ -d "$2" ] && [ ! -L "$2" ]; then printf '%s: is a directory\n' "$2" >&2; exit 1; fi
  ln -sfn -- "$1" "$2" || exit 1
  shift 2
done`

// lnBatch bounds the bytes of links' paths one shell is given: well
// within what a command line may hold.
const lnBatch = 64 << 10

// Symlinks makes links below dir, a directory of the sandbox. envd has no
// call that makes a link (docs/files.md, "Links and odd files in an
// upload"), so the sandbox's own /bin/sh runs ln, a few hundred links at
// a time, in dir: the paths are passed as arguments, never through a
// shell's parsing, so any name goes.
func (c *Client) Symlinks(ctx context.Context, dir string, links []Symlink) error {
	for len(links) > 0 {
		args, n := []string{"-c", lnScript, "abx-ln"}, 0
		for size := 0; n < len(links) && (n == 0 || size < lnBatch); n++ {
			args = append(args, links[n].Target, links[n].Path)
			size += len(links[n].Target) + len(links[n].Path)
		}
		if err := c.runQuiet(ctx, "/bin/sh", args, dir, "could not make the links in"); err != nil {
			return err
		}
		links = links[n:]
	}
	return nil
}
