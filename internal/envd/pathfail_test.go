package envd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// failingFS answers every filesystem RPC with the error its path names,
// in envd 0.2.10's words.
type failingFS struct {
	filesystemconnect.UnimplementedFilesystemHandler
	errs map[string]*connect.Error
}

func (f failingFS) fail(p string) error {
	if e, ok := f.errs[p]; ok {
		return e
	}
	return connect.NewError(connect.CodeInternal, errors.New("unexpected path "+p))
}

func (f failingFS) Stat(_ context.Context, r *connect.Request[fspb.StatRequest]) (*connect.Response[fspb.StatResponse], error) {
	return nil, f.fail(r.Msg.GetPath())
}

func (f failingFS) ListDir(_ context.Context, r *connect.Request[fspb.ListDirRequest]) (*connect.Response[fspb.ListDirResponse], error) {
	return nil, f.fail(r.Msg.GetPath())
}

func (f failingFS) MakeDir(_ context.Context, r *connect.Request[fspb.MakeDirRequest]) (*connect.Response[fspb.MakeDirResponse], error) {
	return nil, f.fail(r.Msg.GetPath())
}

func (f failingFS) Move(_ context.Context, r *connect.Request[fspb.MoveRequest]) (*connect.Response[fspb.MoveResponse], error) {
	return nil, f.fail(r.Msg.GetSource())
}

func (f failingFS) Remove(_ context.Context, r *connect.Request[fspb.RemoveRequest]) (*connect.Response[fspb.RemoveResponse], error) {
	return nil, f.fail(r.Msg.GetPath())
}

func rpcErr(code connect.Code, msg string) *connect.Error {
	return connect.NewError(code, errors.New(msg))
}

// filesAnswers are /files answers by path: a status and envd's message.
type filesAnswer struct {
	status int
	msg    string
}

func failingEnvd(t *testing.T, rpc map[string]*connect.Error, files map[string]filesAnswer) *Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(filesystemconnect.NewFilesystemHandler(failingFS{errs: rpc}))
	mux.HandleFunc("/files", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		a := files[r.URL.Query().Get("path")]
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(a.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": a.status, "message": a.msg})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return New(ts.Client(), Endpoint{URL: ts.URL, Version: "0.2.10"}, "")
}

// envd words a failure of the operating system as Go does, the system
// call and the absolute path included; abx says it in one plain line:
// the path as given, and the reason. A permission the sandbox refused is
// E5007, whether an RPC (internal) or /files (500) said it; a 403 is
// still the gateway's refusal of the key (E4003).
func TestPathFailuresInOnePlainLine(t *testing.T) {
	t.Parallel()
	c := failingEnvd(t, map[string]*connect.Error{
		"nosuch":      rpcErr(connect.CodeNotFound, "file not found: lstat /home/user/nosuch: no such file or directory"),
		"nodir":       rpcErr(connect.CodeNotFound, "path not found: lstat /home/user/nodir: no such file or directory"),
		"f.txt/x":     rpcErr(connect.CodeInternal, "error getting file info: lstat /home/user/f.txt/x: not a directory"),
		"/etc/x":      rpcErr(connect.CodeInternal, "failed to create directory: mkdir /etc/x: permission denied"),
		"/etc/passwd": rpcErr(connect.CodeInternal, "error removing file or directory: unlinkat /etc/passwd: permission denied"),
		"gone":        rpcErr(connect.CodeNotFound, "source file not found: rename /home/user/gone /home/user/foo: no such file or directory"),
		"f.txt":       rpcErr(connect.CodeInternal, "error renaming: rename /home/user/f.txt /home/user/d: file exists"),
		"mine":        rpcErr(connect.CodeInternal, "error renaming: rename /home/user/mine /etc/mine: permission denied"),
		"d":           rpcErr(connect.CodeAlreadyExists, "directory already exists: /home/user/d"),
	}, map[string]filesAnswer{
		"/etc/foo": {500, "error creating file: open /etc/foo: permission denied"},
		"/root/s":  {500, "error opening file '/root/s': open /root/s: permission denied"},
		"nope":     {404, "path '/home/user/nope' does not exist"},
		"quota":    {403, "permission denied by the gateway"},
	})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
		code abxerr.Code
		msg  string
	}{
		{"stat", second(c.Stat(ctx, "nosuch")), abxerr.NotFound, "nosuch: no such file or directory"},
		{"ls", second(c.ListDir(ctx, "nodir", 1)), abxerr.NotFound, "nodir: no such file or directory"},
		{"stat below a file", second(c.Stat(ctx, "f.txt/x")), abxerr.Rejected, "f.txt/x: not a directory"},
		{"mkdir", second(c.MakeDir(ctx, "/etc/x")), abxerr.PermissionDenied, "/etc/x: permission denied"},
		{"rm", c.Remove(ctx, "/etc/passwd"), abxerr.PermissionDenied, "/etc/passwd: permission denied"},
		{"mv missing", second(c.Move(ctx, "gone", "foo")), abxerr.NotFound, "gone: no such file or directory"},
		{"mv onto a dir", second(c.Move(ctx, "f.txt", "d")), abxerr.Rejected, "cannot move f.txt to d: file exists"},
		{"mv refused", second(c.Move(ctx, "mine", "/etc/mine")), abxerr.PermissionDenied, "cannot move mine to /etc/mine: permission denied"},
		{"mkdir existing", second(c.MakeDir(ctx, "d")), abxerr.Rejected, "directory already exists: /home/user/d"},
		{"write", c.Write(ctx, "/etc/foo", strings.NewReader("x")), abxerr.PermissionDenied, "/etc/foo: permission denied"},
		{"read", second(c.Read(ctx, "/root/s", io.Discard)), abxerr.PermissionDenied, "/root/s: permission denied"},
		{"read missing", second(c.Read(ctx, "nope", io.Discard)), abxerr.NotFound, "nope: path '/home/user/nope' does not exist (HTTP 404)"},
		{"gateway 403", second(c.Read(ctx, "quota", io.Discard)), abxerr.Forbidden, "quota: permission denied by the gateway (HTTP 403)"},
	} {
		e := abxerr.From(tc.err)
		if e == nil || e.Code != tc.code || e.Message != tc.msg {
			t.Errorf("%s: got %v, want %s %q", tc.name, e, tc.code, tc.msg)
			continue
		}
		if tc.code == abxerr.PermissionDenied && !strings.Contains(e.Hint, "/tmp") {
			t.Errorf("%s: hint %q names no path the user may write", tc.name, e.Hint)
		}
		if reason, ok := ReasonOf(tc.err); ok && !strings.HasSuffix(tc.msg, reason) {
			t.Errorf("%s: reason %q", tc.name, reason)
		}
	}
}

// Any RPC, a process's included, that envd refuses with the system's
// "permission denied" is E5007.
func TestPermissionDeniedInAnyRPC(t *testing.T) {
	t.Parallel()
	err := AsError(rpcErr(connect.CodeInvalidArgument, "error starting process: fork/exec /home/user/run.sh: permission denied"))
	if e := abxerr.From(err); e.Code != abxerr.PermissionDenied {
		t.Errorf("got %v (%s)", e, e.Code)
	}
	if e := abxerr.From(AsError(rpcErr(connect.CodePermissionDenied, "HTTP status 403 Forbidden"))); e.Code != abxerr.Forbidden {
		t.Errorf("a 403: %v (%s)", e, e.Code)
	}
}

func second[T any](_ T, err error) error { return err }

// A name is bytes: whatever a sandbox's file system can hold (controls,
// quotes, bytes that are not UTF-8) reaches envd whole, in the path query
// and as the part's file name, which Go's multipart reader on envd's side
// must parse (a raw line break in a header ended the form before).
func TestUploadNamesAreBytes(t *testing.T) {
	t.Parallel()
	type got struct{ query, filename, body string }
	seen := make(chan got, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var g got
		g.query = r.URL.Query().Get("path")
		mr, err := r.MultipartReader()
		if err == nil {
			var part *multipart.Part
			if part, err = mr.NextPart(); err == nil {
				var params map[string]string
				_, params, err = mime.ParseMediaType(part.Header.Get("Content-Disposition"))
				g.filename = params["filename"]
				b, _ := io.ReadAll(part)
				g.body = string(b)
			}
		}
		seen <- g
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"code":500,"message":"error reading form: `+err.Error()+`"}`)
			return
		}
		_, _ = io.WriteString(w, "[]")
	}))
	t.Cleanup(ts.Close)
	c := New(ts.Client(), Endpoint{URL: ts.URL, Version: "0.2.10"}, "")
	for _, name := range []string{"plain.txt", "a\nb", "esc\x1b[31m", "cr\r", "quote\"back\\slash", "50%", "\xff\xfe", "tab\there", "ünï"} {
		p := "dir/" + name
		if err := c.Write(context.Background(), p, strings.NewReader("x")); err != nil {
			t.Errorf("%q: %v", name, err)
		}
		if g := <-seen; g.query != p || g.filename != name || g.body != "x" {
			t.Errorf("%q: the server read path %q, file name %q, body %q", name, g.query, g.filename, g.body)
		}
	}
}
