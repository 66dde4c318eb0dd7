package code

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// run-code - with nothing on stdin (a terminal, an idle pipe) stops at
// Ctrl-C instead of waiting for input, and sends nothing.
func TestRunCodeStdinCtrlC(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.NewFactory(false, nil, "")
	stdin, w := io.Pipe() // never written to
	defer func() { _ = w.Close() }()
	f.IO.In = stdin
	ran := false
	cmd := NewCmdRunCode(f, func(context.Context, *RunCodeOptions) error { ran = true; return nil })
	cmd.SetArgs([]string{"sb-1", "-"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SetIn(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	time.Sleep(100 * time.Millisecond) // reading stdin by now, most likely; either way it must stop
	cancel()
	select {
	case err := <-done:
		if e := abxerr.From(err); e == nil || e.Code != abxerr.Interrupted || abxerr.Exit(err, true) != abxerr.ExitInterrupted {
			t.Errorf("error %v, want E7001 (exit 130)", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("run-code did not stop when interrupted")
	}
	if ran {
		t.Error("the code was sent")
	}
}
