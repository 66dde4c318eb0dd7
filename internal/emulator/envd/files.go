//go:build unix

package envd

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"

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
// the path query.
func (s *Server) filesPath(w http.ResponseWriter, r *http.Request) (string, bool) {
	q := r.URL.Query()
	if q.Get("username") == "" && !s.version.AtLeast(envd.DefaultUser) {
		writeFilesError(w, http.StatusBadRequest, "Query argument username is required, but not found in query")
		return "", false
	}
	p, err := s.Resolve(q.Get("path"))
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
		return "", false
	}
	return p, true
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	p, ok := s.filesPath(w, r)
	if !ok {
		return
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		writeFilesError(w, http.StatusNotFound, "path '"+p+"' does not exist")
		return
	case err != nil:
		writeFilesError(w, http.StatusInternalServerError, err.Error())
		return
	case st.IsDir():
		writeFilesError(w, http.StatusBadRequest, "path '"+p+"' is a directory")
		return
	}
	f, err := os.Open(p)
	if err != nil {
		writeFilesError(w, http.StatusInternalServerError, err.Error())
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
	p, ok := s.filesPath(w, r)
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
			if err := writeFile(p, part); err != nil {
				writeFilesError(w, http.StatusInternalServerError, err.Error())
				return
			}
			out = append(out, uploaded{Name: filepath.Base(p), Path: p, Type: "file"})
		}
	case mediaType == "application/octet-stream" && s.version.AtLeast(envd.OctetUpload):
		if err := writeFile(p, r.Body); err != nil {
			writeFilesError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out = append(out, uploaded{Name: filepath.Base(p), Path: p, Type: "file"})
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

// writeFile overwrites path with r, creating parents.
func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("path '" + path + "' is a directory")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
