package output

import "testing"

// A size is in binary units on a terminal (human.Bytes) and exact when
// piped.
func TestBytesByTheTerminal(t *testing.T) {
	if got := (&Streams{StdoutTTY: true}).Bytes(1415823360); got != "1.32 GiB" {
		t.Errorf("on a terminal: %q", got)
	}
	s := &Streams{StdoutTTY: false}
	if got := s.Bytes(1415823360); got != "1415823360" {
		t.Errorf("piped: %q", got)
	}
}
