package providers

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The forms of a SOURCE that the provider catalog's pages use, as a
// message says them.
const sourceForms = "OWNER/REPO//ID, registry:ID or ID"

// registryPrefix starts the registry form, registry:ID.
const registryPrefix = "registry:"

// maxSourceLength bounds a SOURCE: nothing longer names a provider, and
// an error should not echo a wall of text.
const maxSourceLength = 512

// parseSource reads the provider ID out of a SOURCE in one of the
// catalog's forms: OWNER/REPO//ID, registry:ID or a bare ID. The catalog
// (OWNER/REPO) only says where a plugin would come from; abx fetches
// nothing, so the ID alone decides which provider is meant. Anything that
// is no such form (a URL, a path, "..", spaces or controls) is refused
// rather than guessed at.
func parseSource(s string) (string, *abxerr.Error) {
	if len(s) > maxSourceLength {
		return "", abxerr.New(abxerr.InvalidInput, "invalid SOURCE: longer than %d bytes (want %s)", maxSourceLength, sourceForms)
	}
	if reason := sourceProblem(s); reason != "" {
		return "", abxerr.New(abxerr.InvalidInput, "invalid SOURCE %q: %s (want %s)", s, reason, sourceForms)
	}
	if id, ok := strings.CutPrefix(s, registryPrefix); ok {
		return id, nil
	}
	if _, id, ok := strings.Cut(s, "//"); ok {
		return id, nil
	}
	return s, nil
}

// sourceProblem says what is wrong with s, or "" when it is well formed.
func sourceProblem(s string) string {
	switch {
	case s == "":
		return "it is empty"
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return "it holds a space or a control character"
	case strings.Contains(s, "://"):
		return "a URL, and abx downloads no providers"
	case strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//"), strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), strings.HasPrefix(s, "~"):
		return "a path, and abx loads no providers from files"
	}
	if id, ok := strings.CutPrefix(s, registryPrefix); ok {
		if id == "" {
			return "registry: names no ID"
		}
		return partProblem("ID", id)
	}
	switch strings.Count(s, "//") {
	case 0:
		if strings.Contains(s, "/") {
			return "an ID holds no '/'"
		}
		return partProblem("ID", s)
	case 1:
	default:
		return "more than one '//'"
	}
	repo, id, _ := strings.Cut(s, "//")
	if repo == "" {
		return "OWNER/REPO before '//' is empty"
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || strings.Contains(name, "/") {
		return "what comes before '//' is not OWNER/REPO"
	}
	for _, p := range []struct{ what, v string }{{"OWNER", owner}, {"REPO", name}, {"ID", id}} {
		if r := partProblem(p.what, p.v); r != "" {
			return r
		}
	}
	return ""
}

// partProblem checks one part of a SOURCE (what: "OWNER", "REPO", "ID"):
// ASCII letters, digits, '.', '_' and '-', as provider names and
// repositories are spelled, and never "." or "..".
func partProblem(what, v string) string {
	switch v {
	case "":
		return "the " + what + " is empty"
	case ".", "..":
		return fmt.Sprintf("the %s is %q", what, v)
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Sprintf("the %s holds %q", what, r)
		}
	}
	return ""
}
