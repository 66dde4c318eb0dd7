package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/human"
)

// ReadArgs are files_read's arguments.
type ReadArgs struct {
	SandboxID string `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	Path      string `json:"path" jsonschema:"the file's path (relative: to the user's home)"`
	MaxBytes  int    `json:"max_bytes,omitempty" jsonschema:"read at most this many bytes (default 262144, at most 16777216)"`
}

// ReadResult is files_read's structured result; the file itself is the
// content (text, or an embedded resource for a binary file).
type ReadResult struct {
	Path      string `json:"path"`
	Bytes     int    `json:"bytes" jsonschema:"how many bytes were read"`
	Truncated bool   `json:"truncated" jsonschema:"true when the file is longer than max_bytes and was cut"`
	Binary    bool   `json:"binary" jsonschema:"true when the file is not UTF-8 text: the content is an embedded resource (base64 blob)"`
	MIMEType  string `json:"mimeType"`
}

// WriteArgs are files_write's arguments.
type WriteArgs struct {
	SandboxID     string  `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	Path          string  `json:"path" jsonschema:"the file's path (relative: to the user's home); parents are created, a file there is replaced"`
	Content       *string `json:"content,omitempty" jsonschema:"the file's text (give this or content_base64)"`
	ContentBase64 *string `json:"content_base64,omitempty" jsonschema:"the file's bytes in base64 (give this or content)"`
	Mode          string  `json:"mode,omitempty" jsonschema:"the file's permission bits in octal, as chmod takes them (755 for a program); default: those of the file replaced, 0644 for a new one"`
}

// WriteResult is files_write's structured result.
type WriteResult struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes" jsonschema:"how many bytes were written"`
}

func (s *server) addFilesTools(srv *mcp.Server) {
	add(s, srv, "files.read", &mcp.Tool{
		Name: "files_read",
		Description: "Read a file of a sandbox: a text file as text, a binary one as an embedded resource " +
			"(base64 blob) with its MIME type; at most max_bytes (truncated says so).",
		Annotations: &mcp.ToolAnnotations{Title: "Read a file", ReadOnlyHint: true},
	}, s.read)
	add(s, srv, "files.write", &mcp.Tool{
		Name: "files_write",
		Description: "Write a file of a sandbox from text (content) or bytes (content_base64), creating its parents and replacing what was there, " +
			"atomically: a write that fails leaves the path as it was; " +
			"mode sets its permission bits (755 for a program), else a file replaced keeps its own.",
		Annotations: &mcp.ToolAnnotations{Title: "Write a file", DestructiveHint: ptr(true), IdempotentHint: true},
	}, s.write)
	s.addFilesListTool(srv)
}

// errFull stops a read at its cap.
var errFull = errors.New("read cap reached")

// capped keeps up to max bytes and refuses more, which stops the download.
type capped struct {
	buf bytes.Buffer
	max int
}

func (w *capped) Write(p []byte) (int, error) {
	room := w.max - w.buf.Len()
	if len(p) > room {
		w.buf.Write(p[:room])
		return room, errFull
	}
	return w.buf.Write(p)
}

// readCapped keeps the first limit bytes read writes of a file, and
// whether the file is longer: one byte past the cap tells it, and a read
// cut there is no failure.
func readCapped(limit int, read func(io.Writer) (int64, error)) (data []byte, truncated bool, err error) {
	w := &capped{max: limit + 1}
	if _, err := read(w); err != nil && w.buf.Len() <= limit {
		return nil, false, err
	}
	data = w.buf.Bytes()
	if len(data) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

func (s *server) read(ctx context.Context, _ *mcp.CallToolRequest, in ReadArgs) (*mcp.CallToolResult, *ReadResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	// The cap is this door's: what a model is handed whole. The command
	// line streams a file of any size.
	limit := s.opts.MaxOutput
	if in.MaxBytes != 0 {
		if in.MaxBytes < 1 || in.MaxBytes > maxReadBytes {
			return nil, nil, s.fail(abxerr.New(abxerr.InvalidInput, "invalid max_bytes %d: between 1 and %d", in.MaxBytes, maxReadBytes))
		}
		limit = in.MaxBytes
	}
	data, truncated, err := readCapped(limit, func(w io.Writer) (int64, error) {
		return s.opts.Sandboxes.ReadFile(ctx, id, "", in.Path, w)
	})
	if err != nil {
		return nil, nil, s.failIn(id, err)
	}
	res := &ReadResult{Path: in.Path, Truncated: truncated}
	res.Bytes = len(data)
	res.Binary = !isText(data, res.Truncated)
	res.MIMEType = mimeType(in.Path, data, res.Binary)
	var note string
	if res.Truncated {
		note = fmt.Sprintf("(truncated: the first %d bytes of %s)", limit, in.Path)
	}
	var content []mcp.Content
	if res.Binary {
		u := url.URL{Scheme: "abx", Host: id, Path: in.Path}
		content = append(content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: u.String(), MIMEType: res.MIMEType, Blob: data}})
	} else {
		content = append(content, &mcp.TextContent{Text: string(data)})
	}
	if note != "" {
		content = append(content, &mcp.TextContent{Text: note})
	}
	return &mcp.CallToolResult{Content: content}, res, nil
}

// isText tells UTF-8 text without NUL bytes from binary data; a cut at the
// cap may split the last character.
func isText(data []byte, cut bool) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	if cut {
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0 && !utf8.Valid(data); i++ {
			data = data[:len(data)-1]
		}
	}
	return utf8.Valid(data)
}

// mimeType is the file's type by its name, else by its first bytes.
func mimeType(name string, data []byte, binary bool) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	if !binary {
		return "text/plain; charset=utf-8"
	}
	t := http.DetectContentType(data)
	if strings.HasPrefix(t, "text/") {
		return "application/octet-stream"
	}
	return t
}

func (s *server) write(ctx context.Context, _ *mcp.CallToolRequest, in WriteArgs) (*mcp.CallToolResult, *WriteResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	var data []byte
	switch {
	case in.Content != nil && in.ContentBase64 != nil:
		return nil, nil, s.fail(abxerr.New(abxerr.InvalidInput, "give content or content_base64, not both"))
	case in.Content != nil:
		data = []byte(*in.Content)
	case in.ContentBase64 != nil:
		if data, err = base64.StdEncoding.DecodeString(*in.ContentBase64); err != nil {
			return nil, nil, s.fail(abxerr.New(abxerr.InvalidInput, "content_base64 is not base64: %v", err))
		}
	default:
		return nil, nil, s.fail(abxerr.New(abxerr.InvalidInput, "give content or content_base64").
			WithHint("content for text, content_base64 for bytes; an empty content makes an empty file"))
	}
	// As abx files write: a temporary name renamed onto the path, the
	// mode set before, parents it made undone if it fails.
	var mode *string // left out: the bits of the file replaced
	if in.Mode != "" {
		mode = &in.Mode
	}
	if err := s.opts.Sandboxes.WriteFile(ctx, id, "", in.Path, mode, bytes.NewReader(data)); err != nil {
		return nil, nil, s.failIn(id, err)
	}
	return text("wrote %s to %s", human.Count(len(data), "byte", "bytes"), in.Path), &WriteResult{Path: in.Path, Bytes: len(data)}, nil
}

// ListDirArgs are files_list's arguments.
type ListDirArgs struct {
	SandboxID string `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	Path      string `json:"path,omitempty" jsonschema:"the directory (default: the user's home; relative: to it)"`
	Depth     int    `json:"depth,omitempty" jsonschema:"levels of subdirectories to list (default 1)"`
}

// ListDirResult is files_list's structured result.
type ListDirResult struct {
	Entries   []envd.Entry `json:"entries" jsonschema:"the entries"`
	Truncated bool         `json:"truncated" jsonschema:"true when there were more entries than the cap (10000) and the rest were left out"`
}

// maxListEntries bounds files_list's result: a model reads every entry.
const maxListEntries = 10000

func (s *server) addFilesListTool(srv *mcp.Server) {
	add(s, srv, "files.list", &mcp.Tool{
		Name:        "files_list",
		Description: "List a directory of a sandbox: each entry's name, path, type (file, dir, symlink), size, permissions and modification time; depth lists subdirectories too.",
		Annotations: &mcp.ToolAnnotations{Title: "List a directory", ReadOnlyHint: true},
	}, s.listDir)
}

func (s *server) listDir(ctx context.Context, _ *mcp.CallToolRequest, in ListDirArgs) (*mcp.CallToolResult, *ListDirResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	depth := in.Depth
	if depth == 0 {
		depth = 1 // left out: the directory's own entries
	}
	dir := in.Path
	if dir == "" {
		dir = "."
	}
	list, err := s.opts.Sandboxes.ListDir(ctx, id, "", dir, depth)
	if err != nil {
		return nil, nil, s.failIn(id, err)
	}
	out := &ListDirResult{Entries: list}
	if len(list) > maxListEntries {
		out.Entries, out.Truncated = list[:maxListEntries], true
	}
	var b strings.Builder
	for _, e := range out.Entries {
		name := e.Name
		if depth > 1 {
			name = e.Path
		}
		if e.Type == "dir" {
			name += "/"
		}
		fmt.Fprintf(&b, "%s %s %d\n", name, e.Type, e.Size)
	}
	switch {
	case len(list) == 0:
		return text("%s is empty", dir), out, nil
	case out.Truncated:
		return text("%d entries of %d (name type size):\n%s", maxListEntries, len(list), b.String()), out, nil
	}
	return text("%s (name type size):\n%s", human.Count(len(list), "entry", "entries"), b.String()), out, nil
}
