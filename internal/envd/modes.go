package envd

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
)

// PathMode is a path to give permission bits: Path, relative to the
// directory chmod runs in, or absolute; Mode, its bits (0 to 0777).
type PathMode struct {
	Path string
	Mode fs.FileMode
}

// chmodScript runs chmod on its arguments: a mode, then paths. No path
// starts with "-" (Chmod writes a relative one ./PATH), so none is read
// as an option.
const chmodScript = `exec chmod "$@"`

// chmodBatch bounds the bytes of paths one chmod is given: well within
// what a command line may hold.
const chmodBatch = 64 << 10

// Chmod gives each path its permission bits, in order, in dir, a
// directory of the sandbox. envd has no call that sets a mode and its
// uploads take none (docs/files.md, "What a copy keeps"), so the
// sandbox's own chmod does it through Start, one run for each stretch of
// paths that share a mode (a few hundred paths at a time): the paths are
// arguments, never parsed by a shell, so any name goes. The order holds,
// so that a directory is given its bits after what is below it. It stops
// at the first chmod that fails.
func (c *Client) Chmod(ctx context.Context, dir string, modes []PathMode) error {
	for len(modes) > 0 {
		mode := modes[0].Mode & fs.ModePerm
		args, n := []string{"-c", chmodScript, "abx-chmod", fmt.Sprintf("%04o", uint32(mode))}, 0
		for size := 0; n < len(modes) && modes[n].Mode&fs.ModePerm == mode && (n == 0 || size < chmodBatch); n++ {
			p := modes[n].Path
			if !strings.HasPrefix(p, "/") {
				p = "./" + p
			}
			args = append(args, p)
			size += len(p)
		}
		if err := c.runQuiet(ctx, "/bin/sh", args, dir, "could not set the modes of files in"); err != nil {
			return err
		}
		modes = modes[n:]
	}
	return nil
}

// maxRunErr bounds what is kept of a helper command's complaint.
const maxRunErr = 4 << 10

// runQuiet runs a helper command of abx's own in dir and waits for it: a
// status other than 0 is an error that says what failed (doing, then
// dir), in the command's first line of complaint.
func (c *Client) runQuiet(ctx context.Context, cmd string, args []string, dir, doing string) error {
	var complaint bytes.Buffer
	end, err := c.Start(ctx, Command{Cmd: cmd, Args: args, Cwd: dir}, func(ev Event) error {
		if room := maxRunErr - complaint.Len(); room > 0 {
			complaint.Write(ev.Stderr[:min(room, len(ev.Stderr))])
		}
		return nil
	})
	if err != nil {
		return AsError(err)
	}
	if end.ExitCode == 0 {
		return nil
	}
	why := strings.TrimSpace(complaint.String())
	if why == "" {
		why = end.Status
	}
	where := dir
	if where == "" {
		where = "the user's home"
	}
	e := abxerr.New(abxerr.Rejected, "the sandbox %s %s: %s", doing, where, firstLine(why))
	denied(e, strings.ToLower(why))
	return e
}
