package envd

import (
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
)

// Entry is a file or directory as abx shows it (docs/json.md).
type Entry struct {
	Name          string            `json:"name"`
	Path          string            `json:"path"`
	Type          string            `json:"type"` // file, dir, symlink or unknown
	Size          int64             `json:"size"`
	Mode          uint32            `json:"mode"` // permission bits only: Type says what it is
	Permissions   string            `json:"permissions,omitempty"`
	Owner         string            `json:"owner,omitempty"`
	Group         string            `json:"group,omitempty"`
	ModifiedTime  time.Time         `json:"modifiedTime"`
	SymlinkTarget string            `json:"symlinkTarget,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// permBits are the bits of a mode chmod sets: what Entry.Mode keeps of
// whatever a server sends (docs/json.md, files).
const permBits = 0o7777

func entryOf(e *fspb.EntryInfo) Entry {
	out := Entry{Name: e.GetName(), Path: e.GetPath(), Size: e.GetSize(), Mode: e.GetMode() & permBits,
		Permissions: e.GetPermissions(), Owner: e.GetOwner(), Group: e.GetGroup(),
		SymlinkTarget: e.GetSymlinkTarget(), Metadata: e.GetMetadata(), Type: "unknown"}
	if e.GetModifiedTime() != nil {
		out.ModifiedTime = e.GetModifiedTime().AsTime()
	}
	switch e.GetType() {
	case fspb.FileType_FILE_TYPE_FILE:
		out.Type = "file"
	case fspb.FileType_FILE_TYPE_DIRECTORY:
		out.Type = "dir"
	case fspb.FileType_FILE_TYPE_SYMLINK:
		out.Type = "symlink"
	}
	return out
}

// Stat describes one path.
func (c *Client) Stat(ctx context.Context, path string) (Entry, error) {
	resp, err := c.Filesystem.Stat(ctx, connect.NewRequest(&fspb.StatRequest{Path: path}))
	if err != nil {
		return Entry{}, pathErr(err, path)
	}
	return entryOf(resp.Msg.GetEntry()), nil
}

// ListDir lists a directory to depth levels (1: its entries only).
func (c *Client) ListDir(ctx context.Context, path string, depth int) ([]Entry, error) {
	resp, err := c.Filesystem.ListDir(ctx, connect.NewRequest(&fspb.ListDirRequest{Path: path, Depth: uint32(depth)}))
	if err != nil {
		return nil, pathErr(err, path)
	}
	out := []Entry{}
	for _, e := range resp.Msg.GetEntries() {
		out = append(out, entryOf(e))
	}
	return out, nil
}

// MakeDir creates a directory and its parents; an existing one is an error.
func (c *Client) MakeDir(ctx context.Context, path string) (Entry, error) {
	resp, err := c.Filesystem.MakeDir(ctx, connect.NewRequest(&fspb.MakeDirRequest{Path: path}))
	if err != nil {
		return Entry{}, pathErr(err, path)
	}
	return entryOf(resp.Msg.GetEntry()), nil
}

// Move renames src to dst. A failure names src when it is not there, and
// both otherwise: the system does not say which one it refused.
func (c *Client) Move(ctx context.Context, src, dst string) (Entry, error) {
	resp, err := c.Filesystem.Move(ctx, connect.NewRequest(&fspb.MoveRequest{Source: src, Destination: dst}))
	if err != nil {
		return Entry{}, plainAs(AsError(err), messageOf(err), src, func(reason string, code abxerr.Code) string {
			if code == abxerr.NotFound {
				return src + ": " + reason
			}
			return "cannot move " + src + " to " + dst + ": " + reason
		})
	}
	return entryOf(resp.Msg.GetEntry()), nil
}

// Remove deletes a path recursively; a missing path succeeds.
func (c *Client) Remove(ctx context.Context, path string) error {
	_, err := c.Filesystem.Remove(ctx, connect.NewRequest(&fspb.RemoveRequest{Path: path}))
	return pathErr(err, path)
}

func (c *Client) filesURL(path string) string {
	q := url.Values{"path": {path}}
	if c.User != "" {
		q.Set("username", c.User)
	}
	return c.base + "/files?" + q.Encode()
}

// Read streams a file's bytes into w and returns how many were copied.
func (c *Client) Read(ctx context.Context, path string, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.filesURL(path), nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, abxerr.From(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return 0, filesError(resp, path)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, abxerr.From(err)
	}
	return n, nil
}

// uploadChunk is how much of a file an upload moves at a time.
const uploadChunk = 256 << 10

// Write streams r into path, creating parents and overwriting. The body is
// a multipart form, the only upload envd 0.2.10 takes, built as it is sent.
func (c *Client) Write(ctx context.Context, path string, r io.Reader) error {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Disposition": {formFile(lastElem(path))},
			"Content-Type":        {"application/octet-stream"},
		})
		if err == nil {
			// Large pieces: each one crosses the pipe and the transport.
			_, err = io.CopyBuffer(part, r, make([]byte, uploadChunk))
		}
		if err == nil {
			err = mw.Close()
		}
		_ = pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.filesURL(path), pr)
	if err != nil {
		_ = pr.Close()
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.http.Do(req)
	if err != nil {
		_ = pr.Close()
		return abxerr.From(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return filesError(resp, path)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return nil
}

// formFile is the Content-Disposition of an upload's part. envd writes
// to the path query, but reads the part's header with Go's multipart
// reader, which refuses a control character in it: a name with one is
// sent in RFC 2231's filename* parameter, UTF-8 and percent-encoded byte
// for byte, which Go's mime package (envd's too) decodes to the same
// bytes. Other names go as a quoted string (docs/protocol.md, "File
// contents").
func formFile(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f {
			return `form-data; name="file"; filename*=UTF-8''` + pctEncode(name)
		}
	}
	return `form-data; name="file"; filename="` + quoteEscaper.Replace(name) + `"`
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// pctEncode percent-encodes every byte of s but RFC 5987's attr-chars.
func pctEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func lastElem(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// filesError reads envd's error body (its first JSON value: a failed upload
// can append a second one), maps the status (abxerr.HTTPCode) and adds the
// hints of its own. What the sandbox itself refused (a 400 or a 500, not
// the gateway's 401 or 403) is said plainly, permission denied as E5007.
func filesError(resp *http.Response, path string) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// What the client did not follow: a streamed upload cannot be
		// sent twice, and other redirects were refused before this.
		return abxerr.New(abxerr.BadResponse, "%s: the sandbox redirected %s %s with %d to %q; abx does not follow redirects of transfers",
			path, resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, resp.Header.Get("Location")).
			WithHint("nothing was written; the sandbox's gateway should serve /files where abx asked")
	}
	msg := abxerr.ParseHTTPBody(raw).Message
	e := abxerr.FromHTTP(resp.StatusCode, msg)
	e.Message = abxerr.Cut(path) + ": " + e.Message
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		e.Hint = "the sandbox refused the access token or the user"
	case http.StatusInsufficientStorage:
		e.Hint = "the sandbox's disk is full"
	case http.StatusBadRequest, http.StatusInternalServerError:
		denied(e, msg)
		return plain(e, msg, path)
	}
	return e
}
