package remoteproc

import (
	"strings"
	"testing"
)

// The detach keys end the session wherever reads split them; a start of
// them that turns out to be keys is typed, in order.
func TestTheDetachKeysAreFoundAcrossReads(t *testing.T) {
	seq := []byte{0x10, 0x11}
	for _, c := range []struct {
		name     string
		reads    []string
		typed    string
		detached bool
	}{
		{"plain keys", []string{"ls\r"}, "ls\r", false},
		{"in one read", []string{"ab\x10\x11cd"}, "ab", true},
		{"split", []string{"ab\x10", "\x11cd"}, "ab", true},
		{"a Ctrl-P alone goes with the next key", []string{"\x10", "p"}, "\x10p", false},
		{"Ctrl-P twice, then Q", []string{"\x10\x10", "\x11"}, "\x10", true},
		{"a Ctrl-P at the end is held", []string{"x\x10"}, "x", false},
		{"Q alone is a key", []string{"\x11"}, "\x11", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := detacher{seq: seq}
			var typed strings.Builder
			detached := false
			for _, r := range c.reads {
				keys, done := d.feed([]byte(r), nil)
				typed.Write(keys)
				if done {
					detached = true
					break
				}
			}
			if typed.String() != c.typed || detached != c.detached {
				t.Errorf("typed %q, detached %v; want %q, %v", typed.String(), detached, c.typed, c.detached)
			}
		})
	}
	// No sequence: every key is typed, as read.
	d := detacher{}
	if keys, done := d.feed([]byte("\x10\x11"), nil); string(keys) != "\x10\x11" || done {
		t.Errorf("without detach keys: %q %v", keys, done)
	}
}
