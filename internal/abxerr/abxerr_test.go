package abxerr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
)

// The documentation is the contract scripts rely on: every code is listed
// with its exit status.
func TestEveryCodeIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Codes() {
		row := fmt.Sprintf("| %s | %d |", c, c.ExitCode())
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/errors.md lacks the row %q", row)
		}
	}
	exits, err := os.ReadFile("../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{ExitOK, ExitFailure, ExitUsage, ExitNotFound, ExitAuth, ExitUnsupported, ExitTimeout, ExitInterrupted} {
		if !strings.Contains(string(exits), fmt.Sprintf("| %d |", n)) {
			t.Errorf("docs/exit-codes.md lacks exit status %d", n)
		}
	}
}

func TestFromClassifiesGoErrors(t *testing.T) {
	cases := []struct {
		err  error
		code Code
	}{
		{context.DeadlineExceeded, Timeout},
		{fmt.Errorf("wrapped: %w", context.Canceled), Interrupted},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, Network},
		{New(NotFound, "gone"), NotFound},
		{errors.New("something else"), Internal},
		{fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), Network},
	}
	for _, tc := range cases {
		if got := From(tc.err); got.Code != tc.code {
			t.Errorf("From(%v) = %s, want %s", tc.err, got.Code, tc.code)
		}
	}
	if From(nil) != nil {
		t.Error("From(nil) is not nil")
	}
	if e := NewUnsupported("p", "pty"); e.Code != "E8004" || e.ExitCode() != 5 {
		t.Errorf("unsupported: %+v", e)
	}
}
