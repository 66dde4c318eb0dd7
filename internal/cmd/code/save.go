package code

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/transfer"
)

// save writes each rich format of a result to --save-dir, named by the
// execution count and the result's place (result-3-1.png), notes each path
// and records it in the result's files, or notes what was skipped. Existing
// files of the same name are replaced (docs/run-code.md). A file that
// cannot be written is noted and remembered; the run goes on.
func (s *codeSink) save(r *codeinterp.Result) {
	formats := r.Formats()
	if len(formats) == 0 {
		return
	}
	p := s.opts.Printer
	if s.opts.SaveDir == "" {
		names := make([]string, len(formats))
		for i, f := range formats {
			names[i] = f.Name
		}
		p.Note("result %d has %s: not saved (use --save-dir DIR)", s.n, strings.Join(names, ", "))
		return
	}
	for _, f := range formats {
		path := filepath.Join(s.opts.SaveDir, s.fileName(f))
		if err := saveFormat(s.opts.SaveDir, path, f); err != nil {
			p.Note("result %d: %s not saved: %s", s.n, f.Name, abxerr.From(err).Message)
			if s.saveErr == nil {
				s.saveErr = err
			}
			continue
		}
		if r.Files == nil {
			r.Files = map[string]string{}
		}
		r.Files[f.Name] = path
		p.Note("saved %s to %s", f.Name, path)
	}
}

func saveFormat(dir, path string, f codeinterp.Format) error {
	data := []byte(f.Data)
	if f.Base64 {
		var err error
		if data, err = base64.StdEncoding.DecodeString(strings.TrimSpace(f.Data)); err != nil {
			return abxerr.New(abxerr.BadResponse, "its %s is not base64: %v", f.Name, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot make --save-dir: %v", transfer.LocalReason(err))
	}
	return transfer.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func (s *codeSink) fileName(f codeinterp.Format) string {
	name := "result"
	if s.count > 0 {
		name += fmt.Sprintf("-%d", s.count)
	}
	name += fmt.Sprintf("-%d", s.n)
	if f.Ext == "extra.json" {
		// Extra formats are named after their MIME type, which has a '/'.
		name += "-" + strings.Map(func(r rune) rune {
			if r == '/' || r == os.PathSeparator || r < ' ' {
				return '_'
			}
			return r
		}, f.Name)
	}
	return name + "." + f.Ext
}
