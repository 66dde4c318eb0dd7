//go:build unix

package envd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"strings"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/envd"
)

// /files streams file contents: GET downloads raw bytes, POST uploads a
// multipart form (and, from 0.5.7, a raw octet-stream body). Failures are
// envd 0.2.10's: its statuses and words (answers.go).

func writeFilesError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": status, "message": msg})
}

// filesUser checks the username query (required before 0.4.0) and the user
// it names, as envd looks it up.
func (s *Server) filesUser(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.URL.Query().Get("username")
	if name == "" && !s.version.AtLeast(envd.DefaultUser) {
		writeFilesError(w, http.StatusBadRequest, "Query argument username is required, but not found in query")
		return "", false
	}
	user, err := checkUser(name)
	if err != nil {
		writeFilesError(w, http.StatusUnauthorized, fmt.Sprintf("error looking up user '%s': user: unknown user %s", name, name))
		return "", false
	}
	return user, true
}

// filesPath resolves a path of /files for user, following its links; a
// path the view cannot resolve is a bad request.
func (s *Server) filesPath(w http.ResponseWriter, p, user string) (located, bool) {
	l, err := s.locate(p, user, true)
	if err != nil {
		msg := err.Error()
		var ce *connect.Error
		if errors.As(err, &ce) {
			msg = ce.Message()
		}
		writeFilesError(w, http.StatusBadRequest, fmt.Sprintf("error expanding and resolving path '%s': %s", p, msg))
		return located{}, false
	}
	return l, true
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	user, ok := s.filesUser(w, r)
	if !ok {
		return
	}
	var (
		l  located
		st os.FileInfo
		f  *os.File
	)
	err := s.asUser(func() error {
		var err error
		if l, ok = s.filesPath(w, r.URL.Query().Get("path"), user); !ok {
			return nil
		}
		st, err = s.view.lstat(l.path)
		if err == nil && st.Mode()&os.ModeSymlink != 0 {
			err = os.ErrNotExist // a link resolve could not follow: it leads nowhere
		}
		if err != nil {
			return err
		}
		if !st.IsDir() {
			f, err = s.view.open(l, os.O_RDONLY, 0)
			if err != nil {
				return &openError{err}
			}
		}
		return nil
	})
	if !ok {
		return
	}
	var open *openError
	switch {
	case errors.As(err, &open):
		writeFilesError(w, http.StatusInternalServerError, fmt.Sprintf("error opening file '%s': %s", l.asked, osWords("open", l.asked, open.err)))
		return
	case errors.Is(err, os.ErrNotExist):
		writeFilesError(w, http.StatusNotFound, "path '"+l.asked+"' does not exist")
		return
	case err != nil:
		writeFilesError(w, http.StatusInternalServerError, fmt.Sprintf("error checking if path exists '%s': %s", l.asked, osWords("stat", l.asked, err)))
		return
	case st.IsDir():
		writeFilesError(w, http.StatusBadRequest, "path '"+l.asked+"' is a directory")
		return
	}
	defer func() { _ = f.Close() }()
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", st.ModTime(), f) // Range answers 206
}

// openError is a file that was there and could not be opened.
type openError struct{ err error }

func (e *openError) Error() string { return e.err.Error() }

type uploaded struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Type string `json:"type"`
}

// upload writes each part named file of a multipart form: to the path
// query when there is one, else to the part's own file name, resolved as
// any path (RFC 2231's filename* included: Go's mime package decodes it,
// as envd's does). Two parts to one path fail the request, naming what was
// written.
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == "application/octet-stream" && s.version.AtLeast(envd.OctetUpload) {
		s.uploadRaw(w, r)
		return
	}
	if mediaType != "multipart/form-data" {
		// 0.2.10 answers anything but multipart with a 500 whose body is an
		// error object followed by an empty list.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"code":500,"message":"error parsing multipart form: request Content-Type isn't multipart/form-data"}`+"\n[]\n")
		return
	}
	user, ok := s.filesUser(w, r)
	if !ok {
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		writeFilesError(w, http.StatusInternalServerError, "error parsing multipart form: "+err.Error())
		return
	}
	query, hasPath := r.URL.Query()["path"]
	out := []uploaded{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// envd says so, then still writes the list of what it wrote.
			writeFilesError(w, http.StatusInternalServerError, "error reading form: "+err.Error())
			raw, _ := json.Marshal(out)
			_, _ = w.Write(raw)
			return
		}
		if part.FormName() != "file" {
			continue
		}
		p := ""
		if hasPath {
			p = query[0]
		} else if p, err = partFileName(part); err != nil {
			writeFilesError(w, http.StatusBadRequest, "error getting multipart custom part file name: "+err.Error())
			return
		}
		l, ok := s.filesPath(w, p, user)
		if !ok {
			return
		}
		if msg, twice := uploadedTwice(out, l.asked); twice {
			writeFilesError(w, http.StatusBadRequest, msg)
			return
		}
		if status, err := s.writeFile(l, part); err != nil {
			writeFilesError(w, status, err.Error())
			return
		}
		out = append(out, uploaded{Name: path.Base(l.asked), Path: l.asked, Type: "file"})
		_ = part.Close()
	}
	// envd labels this JSON as text/plain on some versions.
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	raw, _ := json.Marshal(out)
	_, _ = w.Write(raw)
}

// uploadRaw writes an application/octet-stream body to the path query
// (0.5.7 and later).
func (s *Server) uploadRaw(w http.ResponseWriter, r *http.Request) {
	user, ok := s.filesUser(w, r)
	if !ok {
		return
	}
	l, ok := s.filesPath(w, r.URL.Query().Get("path"), user)
	if !ok {
		return
	}
	if status, err := s.writeFile(l, r.Body); err != nil {
		writeFilesError(w, status, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	raw, _ := json.Marshal([]uploaded{{Name: path.Base(l.asked), Path: l.asked, Type: "file"}})
	_, _ = w.Write(raw)
}

// partFileName is a part's whole file name, directories included (the
// multipart package's FileName keeps only the last element).
func partFileName(part *multipart.Part) (string, error) {
	_, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	if err != nil {
		return "", err
	}
	name, ok := params["filename"]
	if !ok {
		return "", errors.New("filename not found in Content-Disposition header")
	}
	return name, nil
}

// uploadedTwice is envd's refusal of a second part to a path one upload
// already wrote.
func uploadedTwice(out []uploaded, p string) (string, bool) {
	var others []string
	twice := false
	for _, u := range out {
		if u.Path == p {
			twice = true
		} else {
			others = append(others, u.Path)
		}
	}
	if !twice {
		return "", false
	}
	msg := fmt.Sprintf("you cannot upload multiple files to the same path '%s' in one upload request, only the first specified file was uploaded", p)
	if len(others) > 1 {
		msg += ", also the following files were uploaded: " + strings.Join(others, ", ")
	}
	return msg, true
}

// writeFile overwrites l with r, creating parents, and says how envd
// would answer a failure. The file is opened without following any link
// below the sandbox directory: locate has resolved them all, and one made
// since must not lead the write elsewhere.
func (s *Server) writeFile(l located, r io.Reader) (int, error) {
	status := http.StatusInternalServerError
	err := s.asUser(func() error {
		if err := s.ensureDirs(path.Dir(l.path)); err != nil {
			return fmt.Errorf("error ensuring directories: %w", err)
		}
		st, err := s.view.lstat(l.path)
		switch {
		case err == nil && st.IsDir():
			status = http.StatusBadRequest
			return fmt.Errorf("path is a directory: %s", l.asked)
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("error getting file info: %s", osWords("stat", l.asked, err))
		}
		isNew := errors.Is(err, os.ErrNotExist)
		f := (*os.File)(nil)
		err = errReadOnly
		if s.writable(l) {
			f, err = s.view.open(l, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		}
		if err == nil && isNew {
			// envd creates a file 0666 less its umask, 022, in a
			// sandbox (not this machine's umask); one it replaces keeps
			// its mode, as it is truncated.
			err = f.Chmod(0o644)
			if err != nil {
				_ = f.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("error creating file: %s", osWords("open", l.asked, err))
		}
		if _, err := io.Copy(f, r); err != nil {
			_ = f.Close()
			return fmt.Errorf("error reading file: %w", err)
		}
		return f.Close()
	})
	return status, err
}
