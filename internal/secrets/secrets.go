// Package secrets holds the values abx must never show, whatever brings
// them back, and takes them out of text and JSON: the one redaction every
// door answers through, the command line's printers, the MCP server's
// tool results and the engine's answers alike (docs/security.md). It is
// a leaf: the doors below the command line share it without linking the
// printer.
package secrets

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Redacted is what a secret is printed as.
const Redacted = "REDACTED"

// MinLen is the shortest value a Set takes: a shorter one would
// redact ordinary words and numbers wherever they appear.
const MinLen = 6

// Set holds the values abx must never print, whatever brings them back:
// the API key, the sandboxes' access tokens, a password in a URL. A server
// may echo any of them in an error message or a header, so every printing
// path redacts them, not just the code that handles them. The zero value is
// ready; it is safe for concurrent use, and a nil *Set redacts nothing.
type Set struct {
	mu     sync.RWMutex
	values map[string]struct{}
	r      *strings.Replacer
}

// Add registers values, and the forms a server may echo them in (echoed
// forms), to be redacted from now on. Values shorter than MinLen are
// ignored.
func (s *Set) Add(values ...string) {
	if s == nil {
		return
	}
	var fresh []string
	for _, v := range values {
		if len(v) < MinLen {
			continue
		}
		for _, form := range echoedForms(v) {
			if len(form) >= MinLen {
				fresh = append(fresh, form)
			}
		}
	}
	if len(fresh) == 0 || s.hasAll(fresh) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for _, v := range fresh {
		if _, ok := s.values[v]; !ok {
			if s.values == nil {
				s.values = map[string]struct{}{}
			}
			s.values[v] = struct{}{}
			changed = true
		}
	}
	if !changed {
		return
	}
	// Longest first: strings.Replacer tries its pairs in order at each
	// position, and a secret that holds another must be replaced whole.
	all := make([]string, 0, len(s.values))
	for v := range s.values {
		all = append(all, v)
	}
	sort.Slice(all, func(i, j int) bool {
		if len(all[i]) != len(all[j]) {
			return len(all[i]) > len(all[j])
		}
		return all[i] < all[j]
	})
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, Redacted)
	}
	s.r = strings.NewReplacer(pairs...)
}

// echoedForms are v and the forms a server's encoders give it when it
// echoes v in an error: URL escaping (query and path), a form decoder's
// (+ read as a space), and JSON's, with <, > and & as \u escapes
// (encoding/json's default) or raw, and each with / as \/ (PHP's and
// Java's encoders). A JSON body whose strings escape more than that is
// decoded before it is printed (abxerr.ParseHTTPBody, RedactJSON).
func echoedForms(v string) []string {
	forms := []string{v, url.QueryEscape(v), url.PathEscape(v), strings.ReplaceAll(v, "+", " ")}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(v)
		lit := strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)
		lit = strings.TrimPrefix(lit, `"`)
		forms = append(forms, lit, strings.ReplaceAll(lit, "/", `\/`))
	}
	return forms
}

// hasAll is Add's common case, every request registering the same key:
// a read lock, not a write lock and a new replacer.
func (s *Set) hasAll(values []string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range values {
		if _, ok := s.values[v]; !ok {
			return false
		}
	}
	return true
}

// AddURLPassword registers the password of a URL's userinfo, if raw is a
// URL that has one.
func (s *Set) AddURLPassword(raw string) {
	if !strings.Contains(raw, "@") {
		return
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return
	}
	if p, ok := u.User.Password(); ok {
		s.Add(p)
	}
}

// Redact replaces every registered secret in text with Redacted.
func (s *Set) Redact(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	r := s.r
	s.mu.RUnlock()
	if r == nil {
		return text
	}
	return r.Replace(text)
}

// Empty tells whether there is nothing to redact: a printer skips the
// work then.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.r == nil
}

// RedactJSON redacts the string literals of encoded JSON and leaves the
// rest byte for byte: a secret is matched in the decoded string, where
// JSON's own escapes cannot hide it, and the result is always valid JSON.
// A literal redacted is encoded again as encoding/json does without HTML
// escaping: whoever shows the JSON on a terminal escapes its controls
// after (internal/output does).
func (s *Set) RedactJSON(b []byte) []byte {
	if s.Empty() {
		return b
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(b) && b[end] != '"' {
			if b[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(b) {
			break // not JSON abx encoded; leave it
		}
		lit := b[i : end+1]
		var str string
		if json.Unmarshal(lit, &str) == nil {
			if red := s.Redact(str); red != str {
				out = append(out, b[last:i]...)
				out = append(out, encodeString(red)...)
				last = end + 1
			}
		}
		i = end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

func encodeString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
