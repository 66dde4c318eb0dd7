package transfer

import (
	"context"
	"io"
	"os"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Remote is what a transfer needs of a sandbox's file service. *envd.Client
// has it; tests give a fake, so that what a hostile or broken sandbox can
// answer is checked without one.
type Remote interface {
	Stat(ctx context.Context, path string) (envd.Entry, error)
	ListDir(ctx context.Context, path string, depth int) ([]envd.Entry, error)
	Read(ctx context.Context, path string, w io.Writer) (int64, error)
	Write(ctx context.Context, path string, r io.Reader) error
	MakeDir(ctx context.Context, path string) (envd.Entry, error)
	Move(ctx context.Context, src, dst string) (envd.Entry, error)
	Remove(ctx context.Context, path string) error
}

var _ Remote = (*envd.Client)(nil)

// Meter counts one file's bytes as they flow through it and tells people
// how far it got; *output.Progress is one.
type Meter interface {
	Writer(w io.Writer) io.Writer
	Reader(r io.Reader) io.Reader
	Done()
}

// noMeter counts nothing: a Copier without NewMeter.
type noMeter struct{}

func (noMeter) Writer(w io.Writer) io.Writer { return w }
func (noMeter) Reader(r io.Reader) io.Reader { return r }
func (noMeter) Done()                        {}

// Copier moves files between this machine and one sandbox, streamed: no
// file is held whole in memory, and what lands on this machine is written
// atomically (WriteFile). A remote path it is given is checked
// (CheckRemotePath) before the sandbox is asked anything.
type Copier struct {
	Remote Remote
	// Sandbox is the sandbox's ID, as messages name the remote side
	// (ID:PATH, the way cp's arguments write it).
	Sandbox string
	// NewMeter starts a meter for one file of total bytes (0: unknown),
	// labelled with its remote path; nil draws none.
	NewMeter func(label string, total int64) Meter
	// Links makes the symbolic links of an uploaded tree below dir, the
	// tree's remote path; nil when the sandbox cannot make links, and a
	// tree's links are left out, each with a note.
	Links func(ctx context.Context, dir string, links []envd.Symlink) error
	// Modes gives paths of the sandbox, below dir, their permission bits
	// (docs/files.md, "What a copy keeps"); nil when the sandbox cannot
	// set them, and an upload has the modes envd gives.
	Modes func(ctx context.Context, dir string, modes []envd.PathMode) error
}

// ForSandbox is the copier of sandbox id through its envd c, the one the
// command line and the MCP server both send files with. canExec tells
// whether the sandbox runs processes: that is how its links are made and
// its modes set (docs/files.md, "What a copy keeps"), else an upload
// leaves links out and has the modes envd gives.
func ForSandbox(c *envd.Client, id string, canExec bool) *Copier {
	cp := &Copier{Remote: c, Sandbox: id}
	if canExec {
		cp.Links, cp.Modes = c.Symlinks, c.Chmod
	}
	return cp
}

func (c *Copier) meter(label string, total int64) Meter {
	if c.NewMeter == nil {
		return noMeter{}
	}
	return c.NewMeter(label, total)
}

// Download writes the remote file to local: under a temporary name beside
// it, renamed when complete, so that an error leaves nothing behind. It
// has an ordinary file's mode (0644), as a shell's > would give it.
func (c *Copier) Download(ctx context.Context, remote, local string) error {
	if err := CheckRemotePath(remote); err != nil {
		return err
	}
	return c.download(ctx, remote, local, Keep)
}

// download is Download with the bits perm gives (downPerm).
func (c *Copier) download(ctx context.Context, remote, local string, perm Perm) error {
	return writeFile(local, perm, func(w io.Writer) error {
		m := c.meter(remote, 0)
		defer m.Done()
		_, err := c.Remote.Read(ctx, remote, m.Writer(w))
		return err
	})
}

// Upload writes the local file to remote, a file's path, creating the
// remote parents and replacing what was there, with the bits perm asks
// for; an upload that fails leaves remote as it was (Put).
func (c *Copier) Upload(ctx context.Context, local, remote string, perm Perm) error {
	fh, err := OpenLocal(local)
	if err != nil {
		return err
	}
	defer func() { _ = fh.Close() }()
	_, err = c.send(ctx, fh, remote, perm, true)
	return err
}

// OpenLocal opens a local file to send. A directory is refused: only cp -r
// sends those, file by file.
func OpenLocal(p string) (*os.File, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot read %s: %v", p, LocalReason(err))
	}
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		_ = fh.Close()
		return nil, abxerr.New(abxerr.InvalidInput, "%s is a directory", p).WithHint("a directory is copied recursively, not read as one file")
	}
	return fh, nil
}

// CheckReadable refuses, before anything is sent, a local file Upload
// could not open.
func CheckReadable(p string) error {
	fh, err := OpenLocal(p)
	if err != nil {
		return err
	}
	return fh.Close()
}
