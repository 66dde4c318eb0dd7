package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const apiKey = "e2b_0123456789abcdef0123456789abcdef01234567"

func TestSecretsRedact(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add("short", "", "token-abc", "token-abc-longer")
	cases := map[string]string{
		"no secrets here":                 "no secrets here",
		"short stays":                     "short stays",
		"k=token-abc-longer;":             "k=REDACTED;",
		"token-abc and token-abc-longer":  "REDACTED and REDACTED",
		"token-abc-longertoken-abc":       "REDACTEDREDACTED",
		"Bearer token-abc, token-ab":      "Bearer REDACTED, token-ab",
		"repeated token-abctoken-abc end": "repeated REDACTEDREDACTED end",
	}
	for in, want := range cases {
		if got := s.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	s.Add("a/b c+d=e")
	if got := s.Redact("q=a%2Fb+c%2Bd%3De p=a%2Fb%20c+d=e"); got != "q=REDACTED p=REDACTED" {
		t.Errorf("URL-escaped forms: %q", got)
	}
	var none *Set
	none.Add(apiKey)
	if none.Redact(apiKey) != apiKey {
		t.Error("a nil Set redacted")
	}
}

// A server echoes a secret in the forms its own encoders give it: JSON's
// (a quote or backslash escaped, <, > and & as \u escapes, a slash as \/
// by PHP's and Java's encoders) and a form decoder's (+ read as a space).
// Each is redacted in plain text as the value itself is.
func TestSecretsRedactTheFormsServersEcho(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add("sk/live+Key==1", `pa"ss\w<o>rd&1`)
	for in, want := range map[string]string{
		`{"error":"bad key sk\/live+Key==1"}`:                 `{"error":"bad key REDACTED"}`,
		`bad key sk/live Key==1`:                              `bad key REDACTED`,
		`{"error":"refused pa\"ss\\w<o>rd&1"}`:                `{"error":"refused REDACTED"}`,
		`{"error":"refused pa\"ss\\w\u003co\u003erd\u00261"}`: `{"error":"refused REDACTED"}`,
	} {
		if got := s.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSecretsConcurrent(t *testing.T) {
	t.Parallel()
	var s Set
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			s.Add(fmt.Sprintf("secret-%d-%s", i, apiKey))
		}()
		go func() {
			defer wg.Done()
			_ = s.Redact("x " + apiKey)
		}()
	}
	wg.Wait()
	if got := s.Redact("secret-3-" + apiKey); got != Redacted {
		t.Errorf("got %q", got)
	}
}

func TestRedactJSONKeepsJSONValid(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add(apiKey, `we"ird\pass`, "n1234567")
	in := map[string]any{
		"message": "key " + apiKey + " refused",
		"quoted":  `a we"ird\pass b`,
		"escape":  "\n1234567", // a newline then digits: not the secret n1234567
		"list":    []string{apiKey, "plain"},
		"n":       42,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		t.Fatal(err)
	}
	out := s.RedactJSON(buf.Bytes())
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("redacted JSON is invalid: %v\n%s", err, out)
	}
	if back["message"] != "key REDACTED refused" || back["quoted"] != "a REDACTED b" ||
		back["escape"] != "\n1234567" || back["list"].([]any)[0] != Redacted || back["n"] != float64(42) {
		t.Errorf("redacted JSON %s", out)
	}
	if strings.Contains(string(out), apiKey) {
		t.Errorf("the key is left: %s", out)
	}
}

// A URL's password is a secret, in every form a server echoes it; a URL
// without one, or text that is no URL, adds nothing.
func TestAURLsPasswordIsASecret(t *testing.T) {
	t.Parallel()
	var s Set
	s.AddURLPassword("not a URL @ all")
	s.AddURLPassword("http://proxy.example:8080")
	if !s.Empty() {
		t.Fatal("a URL without a password added a secret")
	}
	s.AddURLPassword(" http://user:pa55+word@proxy.example:8080 ")
	if got := s.Redact("user pa55+word, pa55%2Bword"); got != "user REDACTED, REDACTED" {
		t.Errorf("got %q", got)
	}
}

// With nothing to redact, JSON comes back as it came, not a copy.
func TestNothingToRedactLeavesJSONAsItIs(t *testing.T) {
	t.Parallel()
	in := []byte(`{"a":"b"}`)
	for _, s := range []*Set{nil, {}} {
		if !s.Empty() || &s.RedactJSON(in)[0] != &in[0] || s.Redact("text") != "text" {
			t.Errorf("an empty set (nil %v) changed its input", s == nil)
		}
	}
	var s Set
	s.Add("tiny", "12345")
	if !s.Empty() {
		t.Errorf("values shorter than %d were taken", MinLen)
	}
}
