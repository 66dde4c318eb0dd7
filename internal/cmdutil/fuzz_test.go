package cmdutil

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// FuzzSandboxID checks that an accepted ID can go into a URL path, a file
// name or a terminal line without changing what they mean.
func FuzzSandboxID(f *testing.F) {
	for _, s := range []string{
		"sb1", "sandbox/sb1", "default--code-interpreter-x7k2p", "sandbox/", "sandbox/sandbox/x",
		".", "..", "sandbox/..", "a/b", `a\b`, "a b", " ", "\t", "a\x00b", "a\x7fb",
		"a\u00a0b", "a\u0085b", "a\u2028b", "\u3000", "\xff\xfe", strings.Repeat("x", provider.MaxIDLength+1),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		id, err := SandboxID(arg)
		if err == nil {
			if want := strings.TrimPrefix(arg, sandboxPrefix); id != want {
				t.Fatalf("SandboxID(%q) = %q, want %q", arg, id, want)
			}
			checkAcceptedID(t, id)
		}
		if sandboxes.CheckID("context ID", arg) == nil {
			checkAcceptedID(t, arg)
		}
	})
}

func checkAcceptedID(t *testing.T, id string) {
	t.Helper()
	if id == "" || id == "." || id == ".." || len(id) > provider.MaxIDLength {
		t.Fatalf("accepted ID %q: empty, a dot name or longer than %d bytes", id, provider.MaxIDLength)
	}
	for _, r := range id {
		if r == '/' || r == '\\' || unicode.IsControl(r) || unicode.IsSpace(r) {
			t.Fatalf("accepted ID %q holds %U", id, r)
		}
	}
}

// FuzzParseTimeout checks the documented ranges of a lifetime and of a
// process's time limit, and that the duration parser agrees with Go's
// where it does not read plain numbers.
func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{
		"90s", "5m", "2h", "7d", "30d", "31d", "300", " 300 ", "0", "-1", "-5s", "1.5s", "29s", "30s",
		"720h", "720h0m1s", "1.5", ".5", "2.", ".", "-1.5", "d", "1dd", "-0d", "9223372036854775807", "106751d", "1e3", "+30", "0x1e",
	} {
		f.Add(s, uint8(0))
	}
	f.Add("1s", uint8(1))
	f.Add("500ms", uint8(2))
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		// What the command line reads, the operation then bounds: a value
		// both let through is whole seconds within the input's range.
		in := []*sandboxes.Input{sandboxes.Op("sandbox.create").Input("timeout"), sandboxes.Op("sandbox.timeout").Input("timeout"),
			sandboxes.Op("process.exec").Input("timeout")}[int(which)%3]
		d, err := ParseSeconds("--timeout", s, in, "")
		if err == nil && in.CheckSeconds(context.Background(), d) == nil && d != 0 &&
			(d < time.Duration(in.Min)*time.Second || d > time.Duration(in.Max)*time.Second || d%time.Second != 0) {
			t.Fatalf("ParseSeconds(%q) = %s, let through by %s: not whole seconds in %s", s, d, in.Name, in.Range())
		}

		d, err = ParseDurationOrSeconds(s)
		trimmed := strings.TrimSpace(s)
		digits, days := strings.CutSuffix(trimmed, "d")
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			unit := time.Second
			if days {
				unit = 24 * time.Hour
			}
			if err == nil && (d < 0 || d%unit != 0) {
				t.Fatalf("ParseDurationOrSeconds(%q) = %s: not a whole, non-negative count of %s", s, d, unit)
			}
			return
		}
		if looksLikeCount(digits) {
			return // a signed count, read by strconv rather than time
		}
		if decimalSeconds(trimmed) {
			trimmed += "s" // plain seconds with a fraction: Go's with the unit
		}
		want, werr := time.ParseDuration(trimmed)
		if (err == nil) != (werr == nil) || d != want {
			t.Fatalf("ParseDurationOrSeconds(%q) = %s, %v; time.ParseDuration says %s, %v", s, d, err, want, werr)
		}
	})
}

// looksLikeCount is a sign and digits, which strconv.ParseInt reads.
func looksLikeCount(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// FuzzParseKeyValues checks that every accepted KEY=VALUE has a key and
// that the map holds exactly what was given, the last value of a repeated
// key winning.
func FuzzParseKeyValues(f *testing.F) {
	f.Add("team=core", "env=dev")
	f.Add("a=b=c", "a=")
	f.Add("=v", "k=v")
	f.Add(" =v", "k")
	f.Add("k=v", "")
	f.Add("\x00=\x00", "\u00a0=x")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, items := range [][]string{nil, {a}, {a, b}} {
			m, err := ParseKeyValues("--metadata", items)
			if err != nil {
				continue
			}
			if len(items) == 0 {
				if m != nil {
					t.Fatalf("ParseKeyValues(nil) = %v, want nil", m)
				}
				continue
			}
			want := map[string]string{}
			for _, it := range items {
				k, v, ok := strings.Cut(it, "=")
				if !ok || strings.TrimSpace(k) == "" {
					t.Fatalf("ParseKeyValues(%q) accepted %q, which has no key", items, it)
				}
				want[k] = v
			}
			if len(m) != len(want) {
				t.Fatalf("ParseKeyValues(%q) = %q, want %q", items, m, want)
			}
			for k, v := range want {
				if got, ok := m[k]; !ok || got != v {
					t.Fatalf("ParseKeyValues(%q) = %q, want %q", items, m, want)
				}
			}
		}
	})
}
