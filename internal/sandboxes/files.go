package sandboxes

import (
	"context"
	"io"
	"path"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer"
)

// The operations on a sandbox's files (the catalogue's files.*), through
// its envd, as user ("" for envd's default user). A path is absolute, or
// relative to the user's home; each is checked before anything is sent
// (transfer.CheckRemotePath: envd names files in UTF-8 only).

// files checks what every file operation is given, once op began with
// the sandbox's ID (on): the user and every path. Then it opens the
// sandbox's envd.
func (s *Service) files(ctx context.Context, op *Operation, id, user string, paths ...string) (*envd.Client, error) {
	if err := CheckUser(op.Input("user").name(ctx), user); err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := transfer.CheckRemotePath(p); err != nil {
			return nil, err
		}
	}
	return s.Envd(ctx, id, user, op.Capability)
}

// ListDir lists the directory dir ("." for the user's home) depth levels
// down: 1 for its own entries (depthInput says why depth is bounded).
// A dir that is a file is refused by envd (E5003).
func (s *Service) ListDir(ctx context.Context, id, user, dir string, depth int) ([]envd.Entry, error) {
	op := Op("files.list")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	if err := op.Input("depth").CheckNumber(ctx, int64(depth)); err != nil {
		return nil, err
	}
	c, err := s.files(ctx, op, id, user, dir)
	if err != nil {
		return nil, err
	}
	return c.ListDir(ctx, dir, depth)
}

// Stat describes one file or directory; one that is not there is E3001.
func (s *Service) Stat(ctx context.Context, id, user, p string) (envd.Entry, error) {
	op := Op("files.stat")
	if _, err := s.on(ctx, op, id); err != nil {
		return envd.Entry{}, err
	}
	c, err := s.files(ctx, op, id, user, p)
	if err != nil {
		return envd.Entry{}, err
	}
	return c.Stat(ctx, p)
}

// ReadFile copies the file at p to w as it arrives, and says how many
// bytes it wrote. What w refuses ends the read.
func (s *Service) ReadFile(ctx context.Context, id, user, p string, w io.Writer) (int64, error) {
	op := Op("files.read")
	if _, err := s.on(ctx, op, id); err != nil {
		return 0, err
	}
	c, err := s.files(ctx, op, id, user, p)
	if err != nil {
		return 0, err
	}
	return c.Read(ctx, p, w)
}

// WriteFile writes what r gives to the file p, creating its missing
// parents and replacing what was there, atomically: under a temporary
// name renamed onto p, so that a write that fails leaves p as it was and
// takes away the parents it made (transfer.Put). mode, when given, is its
// permission bits in octal ("755"); nil keeps those of the file it
// replaces, as a shell's > does (a new one has envd's 0644). A mode is
// set through the sandbox's chmod (docs/files.md, "What a copy keeps"):
// a provider whose sandboxes run no processes refuses it (E8004). r is
// read only once every input passed, so that a refusal reads nothing of
// it.
func (s *Service) WriteFile(ctx context.Context, id, user, p string, mode *string, r io.Reader) error {
	op := Op("files.write")
	if _, err := s.on(ctx, op, id); err != nil {
		return err
	}
	perm := transfer.Keep
	if mode != nil {
		m, err := transfer.ParseMode(op.Input("mode").name(ctx), *mode)
		if err != nil {
			return err
		}
		if err := s.Check(provider.ExecRun); err != nil {
			return err
		}
		perm = transfer.Bits(m)
	}
	c, err := s.files(ctx, op, id, user, p)
	if err != nil {
		return err
	}
	return s.copier(c, id).Write(ctx, p, r, perm)
}

// Copier returns what moves files between this machine and the sandbox,
// as user: files cp's copies, files read's --out and abx run's --put and
// --get, each streamed and atomic on both sides (transfer.Copier). paths
// are the sandbox's paths the caller will copy from or to, checked here
// before anything is sent.
func (s *Service) Copier(ctx context.Context, id, user string, paths ...string) (*transfer.Copier, error) {
	op := Op("files.copy")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	c, err := s.files(ctx, op, id, user, paths...)
	if err != nil {
		return nil, err
	}
	return s.copier(c, id), nil
}

// copier is the copier of sandbox id through c: it keeps modes and makes
// a tree's links when the sandbox runs processes, which is how both are
// done there (docs/files.md, "What a copy keeps").
func (s *Service) copier(c *envd.Client, id string) *transfer.Copier {
	return transfer.ForSandbox(c, id, s.Supports(provider.ExecRun))
}

// Made is a directory MakeDir made, or found there already.
type Made struct {
	envd.Entry
	// Existed is true for a directory that was there already (with
	// parents only; without, it is an error).
	Existed bool
}

// MakeDir makes each directory of paths, in order, as mkdir does: one
// that exists, or whose parent does not, is an error; with parents,
// missing parents are made too and one that exists is fine. The first
// that cannot be made stops it: it returns those made before it, and the
// error.
func (s *Service) MakeDir(ctx context.Context, id, user string, paths []string, parents bool) ([]Made, error) {
	op := Op("files.mkdir")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, op.Input("path").CheckText(ctx, "")
	}
	c, err := s.files(ctx, op, id, user, paths...)
	if err != nil {
		return nil, err
	}
	var made []Made
	for _, p := range paths {
		m, err := makeDir(ctx, c, p, parents, op.Input("parents").name(ctx))
		if err != nil {
			return made, err
		}
		made = append(made, m)
	}
	return made, nil
}

// makeDir makes the directory p. envd's MakeDir makes parents, as mkdir
// -p, and refuses an existing directory, so its parent is checked first
// when it must not be made, and envd's refusal is taken as fine when it
// may. flag names parents as the caller does.
func makeDir(ctx context.Context, c *envd.Client, p string, parents bool, flag string) (Made, error) {
	if !parents {
		if err := parentExists(ctx, c, p, flag); err != nil {
			return Made{}, err
		}
	}
	e, err := c.MakeDir(ctx, p)
	if err != nil && parents && envd.IsAlreadyExists(err) {
		e, err = c.Stat(ctx, p)
		return Made{Entry: e, Existed: true}, err
	}
	return Made{Entry: e}, err
}

// parentExists refuses p when its parent is not a directory there.
func parentExists(ctx context.Context, c *envd.Client, p, flag string) error {
	parent := path.Dir(path.Clean(p))
	if parent == path.Clean(p) {
		return nil // "/" has none
	}
	st, err := c.Stat(ctx, parent)
	switch {
	case hasCode(err, abxerr.NotFound):
		return abxerr.New(abxerr.NotFound, "cannot create %s: %s does not exist", p, parent).
			WithHint("add %s to create the missing parents", flag)
	case err != nil:
		return err
	case st.Type != "dir":
		return abxerr.New(abxerr.Rejected, "cannot create %s: %s is not a directory", p, parent)
	}
	return nil
}

// Remove removes a file, or a directory with everything in it; a symbolic
// link is removed, not what it leads to. A path that is not there is left
// as it is, as rm -f does: removed is then false.
func (s *Service) Remove(ctx context.Context, id, user, p string) (removed bool, err error) {
	op := Op("files.remove")
	if _, err := s.on(ctx, op, id); err != nil {
		return false, err
	}
	c, err := s.files(ctx, op, id, user, p)
	if err != nil {
		return false, err
	}
	// envd's Remove of a missing path succeeds, so only a Stat tells.
	_, err = c.Stat(ctx, p)
	if hasCode(err, abxerr.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, c.Remove(ctx, p)
}

// Move moves or renames p to the path to (the new path, not a directory
// to move into), and describes what is there now.
func (s *Service) Move(ctx context.Context, id, user, p, to string) (envd.Entry, error) {
	op := Op("files.move")
	if _, err := s.on(ctx, op, id); err != nil {
		return envd.Entry{}, err
	}
	c, err := s.files(ctx, op, id, user, p, to)
	if err != nil {
		return envd.Entry{}, err
	}
	return c.Move(ctx, p, to)
}

// hasCode reports whether err is abx's error of code.
func hasCode(err error, code abxerr.Code) bool {
	e := abxerr.From(err)
	return e != nil && e.Code == code
}
