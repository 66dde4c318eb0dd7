//go:build unix

package envd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	client "github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
)

// answersBox is a fake envd 0.2.10 whose home holds a file f.txt and a
// directory d, for the tests of its failures' words.
func answersBox(t *testing.T) (*client.Client, string, string) {
	t.Helper()
	c, s, url := start(t, "0.2.10", "user")
	home := s.Home()
	if err := os.WriteFile(filepath.Join(home, "f.txt"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "d", "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	return c, url, home
}

// Every RPC fails as envd 0.2.10 fails: its Connect code, and its words
// around the operating system's, with the path as the client named it
// made absolute (docs/emulator.md, "Failures").
func TestRPCFailuresInEnvdWords(t *testing.T) {
	t.Parallel()
	c, _, _ := answersBox(t)
	ctx := context.Background()
	fs := c.Filesystem
	for _, tc := range []struct {
		name string
		call func() error
		code connect.Code
		msg  string
	}{
		{"stat missing", func() error { _, err := fs.Stat(ctx, connect.NewRequest(&pb.StatRequest{Path: "nosuch"})); return err },
			connect.CodeNotFound, "file not found: lstat /home/user/nosuch: no such file or directory"},
		{"stat below a file", func() error {
			_, err := fs.Stat(ctx, connect.NewRequest(&pb.StatRequest{Path: "f.txt/x"}))
			return err
		}, connect.CodeInternal, "error getting file info: lstat /home/user/f.txt/x: not a directory"},
		{"ls missing", func() error {
			_, err := fs.ListDir(ctx, connect.NewRequest(&pb.ListDirRequest{Path: "nosuch/deeper"}))
			return err
		}, connect.CodeNotFound, "path not found: lstat /home/user/nosuch: no such file or directory"},
		{"ls a file", func() error {
			_, err := fs.ListDir(ctx, connect.NewRequest(&pb.ListDirRequest{Path: "f.txt"}))
			return err
		},
			connect.CodeInvalidArgument, "path is not a directory: /home/user/f.txt"},
		{"mkdir existing", func() error { _, err := fs.MakeDir(ctx, connect.NewRequest(&pb.MakeDirRequest{Path: "d"})); return err },
			connect.CodeAlreadyExists, "directory already exists: /home/user/d"},
		{"mkdir a file", func() error {
			_, err := fs.MakeDir(ctx, connect.NewRequest(&pb.MakeDirRequest{Path: "f.txt"}))
			return err
		},
			connect.CodeInvalidArgument, "path already exists but it is not a directory: /home/user/f.txt"},
		{"mkdir below a file", func() error {
			_, err := fs.MakeDir(ctx, connect.NewRequest(&pb.MakeDirRequest{Path: "f.txt/sub"}))
			return err
		}, connect.CodeInternal, "error getting file info: stat /home/user/f.txt/sub: not a directory"},
		{"mkdir read-only", func() error {
			_, err := fs.MakeDir(ctx, connect.NewRequest(&pb.MakeDirRequest{Path: "/etc/abx-answers/sub"}))
			return err
		}, connect.CodeInternal, "failed to create directory: mkdir /etc/abx-answers: permission denied"},
		{"mv missing", func() error {
			_, err := fs.Move(ctx, connect.NewRequest(&pb.MoveRequest{Source: "nosuch", Destination: "foo"}))
			return err
		}, connect.CodeNotFound, "source file not found: rename /home/user/nosuch /home/user/foo: no such file or directory"},
		{"mv onto a directory", func() error {
			_, err := fs.Move(ctx, connect.NewRequest(&pb.MoveRequest{Source: "f.txt", Destination: "d"}))
			return err
		}, connect.CodeInternal, "error renaming: rename /home/user/f.txt /home/user/d: file exists"},
		{"mv read-only", func() error {
			_, err := fs.Move(ctx, connect.NewRequest(&pb.MoveRequest{Source: "f.txt", Destination: "/etc/abx-answers"}))
			return err
		}, connect.CodeInternal, "error renaming: rename /home/user/f.txt /etc/abx-answers: permission denied"},
		{"rm read-only", func() error {
			_, err := fs.Remove(ctx, connect.NewRequest(&pb.RemoveRequest{Path: "/etc/passwd"}))
			return err
		},
			connect.CodeInternal, "error removing file or directory: unlinkat /etc/passwd: permission denied"},
		{"rm missing read-only", func() error {
			_, err := fs.Remove(ctx, connect.NewRequest(&pb.RemoveRequest{Path: "/etc/abx-answers"}))
			return err
		}, 0, ""},
	} {
		err := tc.call()
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%s: %v, want success", tc.name, err)
			}
			continue
		}
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != tc.code || ce.Message() != tc.msg {
			t.Errorf("%s:\n got %v\nwant %s: %s", tc.name, err, tc.code, tc.msg)
		}
	}
}

// /files answers as envd 0.2.10's handlers: their statuses and words, the
// path as the client named it made absolute.
func TestFilesFailuresInEnvdWords(t *testing.T) {
	t.Parallel()
	_, base, _ := answersBox(t)
	for _, tc := range []struct {
		name, method, path, user string
		status                   int
		msg                      string
	}{
		{"read missing", "GET", "nosuch", "user", 404, "path '/home/user/nosuch' does not exist"},
		{"read a directory", "GET", "d", "user", 400, "path '/home/user/d' is a directory"},
		{"read as nobody", "GET", "f.txt", "bob", 401, "error looking up user 'bob': user: unknown user bob"},
		{"write onto a directory", "POST", "d", "user", 400, "path is a directory: /home/user/d"},
		{"write read-only", "POST", "/etc/abx-answers", "user", 500, "error creating file: open /etc/abx-answers: permission denied"},
		{"write below read-only", "POST", "/etc/abx-answers/sub/x", "user", 500,
			"error ensuring directories: failed to create directory: mkdir /etc/abx-answers: permission denied"},
		{"write below a file", "POST", "f.txt/x", "user", 500, "error ensuring directories: path is a file: /home/user/f.txt"},
	} {
		var body io.Reader
		var ctype string
		if tc.method == "POST" {
			var b bytes.Buffer
			mw := multipart.NewWriter(&b)
			part, _ := mw.CreateFormFile("file", "x")
			_, _ = part.Write([]byte("x"))
			_ = mw.Close()
			body, ctype = &b, mw.FormDataContentType()
		}
		status, msg := filesCall(t, tc.method, base+"/files?"+url.Values{"path": {tc.path}, "username": {tc.user}}.Encode(), ctype, body)
		if status != tc.status || msg != tc.msg {
			t.Errorf("%s:\n got %d %s\nwant %d %s", tc.name, status, msg, tc.status, tc.msg)
		}
	}
}

// filesCall sends one /files request and returns the status and the
// message of its error body ("" for none).
func filesCall(t *testing.T, method, u, ctype string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Access-Token", token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 300 {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, abxerr.ParseHTTPBody(raw).Message
}

// Without a path query, each part goes to its own file name, decoded as
// envd's Go decodes a Content-Disposition: an RFC 2231 name carries any
// byte a file name may hold. Two parts to one path fail the request.
func TestUploadByPartNames(t *testing.T) {
	t.Parallel()
	_, base, home := answersBox(t)
	odd := "sub/a\nb\x1b[31m\r\xff.txt"
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for name, body := range map[string]string{
		`form-data; name="file"; filename="plain.txt"`:                    "plain",
		`form-data; name="file"; filename*=UTF-8''` + url.PathEscape(odd): "odd",
		`form-data; name="other"; filename="ignored.txt"`:                 "not a file part",
	} {
		part, _ := mw.CreatePart(map[string][]string{"Content-Disposition": {name}})
		_, _ = part.Write([]byte(body))
	}
	_ = mw.Close()
	status, msg := filesCall(t, "POST", base+"/files?username=user", mw.FormDataContentType(), &b)
	if status != 200 {
		t.Fatalf("%d %s", status, msg)
	}
	for name, want := range map[string]string{"plain.txt": "plain", odd: "odd"} {
		if got, err := os.ReadFile(filepath.Join(home, name)); err != nil || string(got) != want {
			t.Errorf("%q: %q %v", name, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "ignored.txt")); err == nil {
		t.Error("a part not named file was written")
	}

	b.Reset()
	mw = multipart.NewWriter(&b)
	for range 2 {
		part, _ := mw.CreateFormFile("file", "same.txt")
		_, _ = part.Write([]byte("x"))
	}
	_ = mw.Close()
	status, msg = filesCall(t, "POST", base+"/files?username=user", mw.FormDataContentType(), &b)
	if want := "you cannot upload multiple files to the same path '/home/user/same.txt' in one upload request, only the first specified file was uploaded"; status != 400 || msg != want {
		t.Errorf("twice: %d %s", status, msg)
	}
}

// The client makes links with the sandbox's own ln, whatever their names
// hold; a file or a link in the way is replaced, a directory is not.
func TestClientMakesLinks(t *testing.T) {
	t.Parallel()
	c, _, home := answersBox(t)
	tree := filepath.Join(home, "t")
	if err := os.MkdirAll(filepath.Join(tree, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "was-a-file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := []client.Symlink{{Path: "a", Target: "x.txt"}, {Path: "odd\nname\x1b", Target: "../f.txt"},
		{Path: "sub/in", Target: "../a"}, {Path: "was-a-file", Target: "sub"}}
	if err := c.Symlinks(context.Background(), "/home/user/t", links); err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if got, err := os.Readlink(filepath.Join(tree, l.Path)); err != nil || got != l.Target {
			t.Errorf("%q: %q %v", l.Path, got, err)
		}
	}
	err := c.Symlinks(context.Background(), "/home/user/t", []client.Symlink{{Path: "sub/dir", Target: "a"}})
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Rejected || !strings.Contains(e.Message, "sub/dir: is a directory") {
		t.Errorf("onto a directory: %v", err)
	}
}
