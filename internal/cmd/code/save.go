package code

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// pendingFormat takes the value of one format of the result being read
// (codeinterp.Spool) and passes it on as it comes: to its file under
// --save-dir, base64-decoded on the way, and to a held value when the
// output prints it. With neither, it is dropped: only the format's name is
// shown. Nothing of it is kept in memory but a held value's first bytes.
type pendingFormat struct {
	f       codeinterp.Format
	file    *transfer.AtomicFile // nil when not saving, or once saving failed
	dst     io.Writer            // file, or a base64 decoder writing to it
	dec     *base64Writer
	saveErr error        // why it cannot be saved
	held    *output.Held // nil unless the output prints it
}

// Write never fails for the file: a result that cannot be saved is noted
// and the run goes on. It fails when the JSON output can no longer be
// printed whole.
func (p *pendingFormat) Write(b []byte) (int, error) {
	if p.held != nil {
		if _, err := p.held.Write(b); err != nil {
			return 0, err
		}
	}
	if p.dst != nil {
		if _, err := p.dst.Write(b); err != nil {
			p.failSave(err)
		}
	}
	return len(b), nil
}

func (p *pendingFormat) failSave(err error) {
	if p.saveErr == nil {
		p.saveErr = err
	}
	if p.file != nil {
		p.file.Abort()
	}
	p.file, p.dst, p.dec = nil, nil, nil
}

// commit puts the saved file in its place, once the result is whole.
func (p *pendingFormat) commit() (string, error) {
	if p.dec != nil {
		if err := p.dec.Close(); err != nil {
			p.failSave(err)
		}
	}
	if p.saveErr != nil {
		return "", p.saveErr
	}
	path := p.file.Path
	if err := p.file.Commit(); err != nil {
		p.file = nil
		p.failSave(err)
		return "", err
	}
	p.file, p.dst = nil, nil
	return path, nil
}

// discard removes whatever was written of a value that belongs to no
// result.
func (p *pendingFormat) discard() {
	if p.file != nil {
		p.file.Abort()
	}
	if p.held != nil {
		p.held.Close()
	}
	*p = pendingFormat{f: p.f}
}

// Format is codeinterp.Spool's: where the value of a format of the result
// being read goes.
func (s *codeSink) Format(f codeinterp.Format) io.Writer {
	if old := s.pending[f.Name]; old != nil {
		old.discard() // the format came twice in the line: the last counts
	}
	p := &pendingFormat{f: f}
	if dir := s.opts.SaveDir; dir != "" {
		// The result being read is the next one.
		file, err := createPart(dir, filepath.Join(dir, s.fileName(s.n+1, f)))
		if err != nil {
			p.saveErr = err
		} else {
			p.file, p.dst = file, file
			if f.Base64 {
				p.dec = newBase64Writer(file, f.Name)
				p.dst = p.dec
			}
		}
	}
	p.held = s.st.Hold()
	if s.pending == nil {
		s.pending = map[string]*pendingFormat{}
	}
	s.pending[f.Name] = p
	return p
}

// Drop is codeinterp.Spool's: the line being read was no result.
func (s *codeSink) Drop() {
	for _, p := range s.pending {
		p.discard()
	}
	clear(s.pending)
}

// save writes each rich format of a result to --save-dir, named by the
// execution count and the result's place (result-3-1.png), notes each path
// and records it in the result's files, or notes what was skipped. Spooled
// formats are in their files already, which are put in place here.
// Existing files of the same name are replaced (docs/run-code.md). A file
// that cannot be written is noted and remembered; the run goes on.
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
		path := filepath.Join(s.opts.SaveDir, s.fileName(s.n, f))
		var err error
		if f.Spooled {
			pf := s.pending[f.Name]
			if pf == nil {
				continue // not asked of this sink's Format: nothing to put in place
			}
			path, err = pf.commit()
		} else {
			err = saveFormat(s.opts.SaveDir, path, f)
		}
		if err != nil {
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
		s.saved++
		p.Note("saved %s to %s", f.Name, path)
	}
}

// noteNothingSaved says that a --save-dir received nothing, which would
// otherwise pass in silence: code whose figure the kernel showed as text
// alone, or that displayed nothing. It begins "abx:" as it shares stderr
// with the code's own.
func (s *codeSink) noteNothingSaved() {
	if s.opts.SaveDir != "" && s.saved == 0 && s.saveErr == nil {
		s.opts.Printer.Note("abx: --save-dir %s: the run returned no image or other rich result to save", s.opts.SaveDir)
	}
}

// saveFormat writes a format that was held: a JSON value, or a string
// that came before its line said it was a result.
func saveFormat(dir, path string, f codeinterp.Format) error {
	file, err := createPart(dir, path)
	if err != nil {
		return err
	}
	var w io.Writer = file
	var dec *base64Writer
	if f.Base64 {
		dec = newBase64Writer(file, f.Name)
		w = dec
	}
	_, err = io.WriteString(w, f.Data)
	if err == nil && dec != nil {
		err = dec.Close()
	}
	if err != nil {
		file.Abort()
		return err
	}
	return file.Commit()
}

func (s *codeSink) fileName(n int, f codeinterp.Format) string {
	name := "result"
	if s.count > 0 {
		name += fmt.Sprintf("-%d", s.count)
	}
	name += fmt.Sprintf("-%d", n)
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

// createPart starts a file of --save-dir: written to a temporary name in
// the same directory and renamed into place once whole, so that a reader
// never sees half a file and a failure leaves nothing behind.
func createPart(dir, path string) (*transfer.AtomicFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot make --save-dir: %v", transfer.LocalReason(err))
	}
	f, err := transfer.CreateAtomic(path)
	if err != nil {
		return nil, abxerr.From(err).WithHint("choose a --save-dir you can write to")
	}
	return f, nil
}
