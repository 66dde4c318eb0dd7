package sandboxes

import (
	"reflect"
	"testing"
)

func TestLanguages(t *testing.T) {
	t.Parallel()
	want := []string{"bash", "java", "javascript", "python", "r", "typescript"}
	if got := Languages(); !reflect.DeepEqual(got, want) {
		t.Errorf("Languages() = %v, want %v", got, want)
	}
	for in, want := range map[string]string{"JS": "javascript", "ts": "typescript", "Python": "python", "\tr\n": "r"} {
		if got, err := ParseLanguage("--language", in); err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseLanguage("--language", "cobol"); err == nil || err.Error() != `unknown --language "cobol"` {
		t.Errorf("cobol: %v", err)
	}
}
