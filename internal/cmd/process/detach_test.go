//go:build unix

package process

import (
	"testing"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// The detach message starts a line of its own on a terminal, where the
// remote's cursor was left mid-line (after its prompt); on a pipe or a
// file it is the line alone.
func TestDetachMessageStartsALine(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		io, _, _, errOut := output.Test(tty)
		if err := sessionEnd(io, "sb1", nil, &remoteproc.DetachedError{PID: 42}); err != nil {
			t.Fatal(err)
		}
		want := "Detached; process 42 runs on. Get back with: abx terminal sb1 --attach 42\n"
		if tty {
			want = "\r\n" + want
		}
		if errOut.String() != want {
			t.Errorf("tty %v: stderr %q, want %q", tty, errOut, want)
		}
	}
}
