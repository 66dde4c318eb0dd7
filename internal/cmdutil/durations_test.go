package cmdutil

import (
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/sandboxes"
)

// Every duration abx reads obeys one rule: words it cannot read are "not a
// duration"; a duration it reads but that is out of range, 0 and negatives
// included, says the range; plain seconds may have a fraction.
func TestDurationsSayTheirRange(t *testing.T) {
	cases := []struct {
		name, s string
		parse   func(string) (time.Duration, error)
		want    time.Duration
		err     string
	}{
		{"word", "soon", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, time.Second, time.Hour, "")
		}, 0, `invalid --timeout "soon": not a duration`},
		{"zero", "0", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, time.Second, time.Hour, "")
		}, 0, `invalid --timeout "0": must be between 1s and 1h`},
		{"negative", "-1s", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, time.Second, time.Hour, "")
		}, 0, `invalid --timeout "-1s": must be between 1s and 1h`},
		{"negative seconds", "-5", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, time.Second, time.Hour, "")
		}, 0, `invalid --timeout "-5": must be between 1s and 1h`},
		{"fraction", "1.5", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, time.Second, time.Hour, "")
		}, 1500 * time.Millisecond, ""},
		{"under a second", "500ms", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, 100*time.Millisecond, 30*24*time.Hour, "")
		}, 500 * time.Millisecond, ""},
		{"bounds as written", "0.05", func(s string) (time.Duration, error) {
			return ParseDurationIn("--timeout", s, 100*time.Millisecond, 30*24*time.Hour, "")
		}, 0, `must be between 100ms and 30 days`},
		{"lifetime fraction", "1.5", func(s string) (time.Duration, error) {
			return ParseSeconds("--timeout", s, sandboxes.Op("sandbox.timeout").Input("timeout"), "")
		}, 0, "the server counts whole seconds"},
		// A negative one is read as itself: the operation refuses it,
		// showing what was typed.
		{"lifetime negative", "-1s", func(s string) (time.Duration, error) {
			return ParseSeconds("DURATION", s, sandboxes.Op("sandbox.timeout").Input("timeout"), "")
		}, -time.Second, ""},
		{"process timeout zero", "0", func(s string) (time.Duration, error) {
			return ParseSeconds("--timeout", s, sandboxes.Op("process.exec").Input("timeout"), "for no limit")
		}, 0, `invalid --timeout "0": must be between 1s and 24h`},
	}
	for _, tc := range cases {
		d, err := tc.parse(tc.s)
		switch {
		case tc.err == "" && (err != nil || d != tc.want):
			t.Errorf("%s: %q read as %s, %v; want %s", tc.name, tc.s, d, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %q gave %s, %v; want an error saying %q", tc.name, tc.s, d, err, tc.err)
		}
	}
}
