//go:build unix

package envd

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/envd"
)

// /files streams file contents: GET downloads raw bytes, POST uploads a
// multipart form (and, from 0.5.7, a raw octet-stream body).

func writeFilesError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": status, "message": msg})
}

// filesPath checks the username query (required before 0.4.0) and resolves
// the path query; for an upload, the path must be writable.
func (s *Server) filesPath(w http.ResponseWriter, r *http.Request, write bool) (located, bool) {
	q := r.URL.Query()
	if q.Get("username") == "" && !s.version.AtLeast(envd.DefaultUser) {
		writeFilesError(w, http.StatusBadRequest, "Query argument username is required, but not found in query")
		return located{}, false
	}
	user, err := checkUser(q.Get("username"))
	var l located
	if err == nil {
		l, err = s.locate(q.Get("path"), user, true)
	}
	if err == nil && write {
		err = s.canWrite(l)
	}
	if err != nil {
		status, msg := http.StatusBadRequest, err.Error()
		var ce *connect.Error
		if errors.As(err, &ce) {
			msg = ce.Message()
			if ce.Code() == connect.CodePermissionDenied {
				status = http.StatusForbidden
			}
		}
		writeFilesError(w, status, msg)
		return located{}, false
	}
	return l, true
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	var (
		l  located
		ok bool
		st os.FileInfo
		f  *os.File
	)
	err := s.asUser(func() error {
		var err error
		if l, ok = s.filesPath(w, r, false); !ok {
			return nil
		}
		st, err = s.view.lstat(l.path)
		if err == nil && st.Mode()&os.ModeSymlink == 0 && !st.IsDir() {
			f, err = s.view.open(l, os.O_RDONLY, 0)
		}
		return err
	})
	if !ok {
		return
	}
	if err == nil && st.Mode()&os.ModeSymlink != 0 {
		err = os.ErrNotExist // a link resolve could not follow: it leads nowhere
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		writeFilesError(w, http.StatusNotFound, "path '"+l.path+"' does not exist")
		return
	case errors.Is(err, os.ErrPermission):
		writeFilesError(w, http.StatusForbidden, "permission denied: "+l.path)
		return
	case err != nil:
		writeFilesError(w, http.StatusInternalServerError, fsErrorAt(l, err).Error())
		return
	case st.IsDir():
		writeFilesError(w, http.StatusBadRequest, "path '"+l.path+"' is a directory")
		return
	}
	if f == nil {
		writeFilesError(w, http.StatusInternalServerError, "cannot open "+l.path)
		return
	}
	defer func() { _ = f.Close() }()
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", st.ModTime(), f) // Range answers 206
}

type uploaded struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Type string `json:"type"`
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	var (
		l  located
		ok bool
	)
	_ = s.asUser(func() error { l, ok = s.filesPath(w, r, true); return nil })
	if !ok {
		return
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var out []uploaded
	switch {
	case mediaType == "multipart/form-data":
		mr, err := r.MultipartReader()
		if err != nil {
			writeFilesError(w, http.StatusBadRequest, err.Error())
			return
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				writeFilesError(w, http.StatusBadRequest, err.Error())
				return
			}
			if part.FormName() != "file" {
				continue
			}
			if err := s.writeFile(l, part); err != nil {
				writeFilesError(w, http.StatusInternalServerError, err.Error())
				return
			}
			out = append(out, uploaded{Name: path.Base(l.path), Path: l.path, Type: "file"})
		}
	case mediaType == "application/octet-stream" && s.version.AtLeast(envd.OctetUpload):
		if err := s.writeFile(l, r.Body); err != nil {
			writeFilesError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out = append(out, uploaded{Name: path.Base(l.path), Path: l.path, Type: "file"})
	default:
		// 0.2.10 answers anything but multipart with a 500 whose body is an
		// error object followed by an empty list.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"code":500,"message":"error parsing multipart form: request Content-Type isn't multipart/form-data"}`+"\n[]\n")
		return
	}
	if len(out) == 0 {
		writeFilesError(w, http.StatusBadRequest, "no file part in the form")
		return
	}
	// envd labels this JSON as text/plain on some versions.
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_ = json.NewEncoder(w).Encode(out)
}

// writeFile overwrites l with r, creating parents. The file is opened
// without following any link below the sandbox directory: locate has
// resolved them all, and one made since must not lead the write elsewhere.
func (s *Server) writeFile(l located, r io.Reader) error {
	return s.asUser(func() error { return s.writeFileAsUser(l, r) })
}

func (s *Server) writeFileAsUser(l located, r io.Reader) error {
	parent, err := s.locate(path.Dir(l.path), User, false)
	if err == nil {
		err = s.view.mkdirAll(parent)
	}
	if err != nil {
		return fsErrorAt(l, err)
	}
	if st, err := s.view.lstat(l.path); err == nil && st.IsDir() {
		return errors.New("path '" + l.path + "' is a directory")
	}
	f, err := s.view.open(l, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fsErrorAt(l, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
