//go:build unix

package root

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/testrun"
)

// A local server's lines go through the printer like any result: --jq
// filters them as soon as it serves, and Ctrl-C, its normal end, is no
// failure of the filter.
func TestLocalServerLinesThroughJQ(t *testing.T) {
	t.Parallel()
	io, _, _, _ := output.Test(false)
	out, errOut := &testrun.Buffer{}, &testrun.Buffer{}
	io.Out, io.ErrOut = out, errOut
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, io, func(string) string { return "" },
			[]string{"emulator", "start", "--isolation", "none", "--state-dir", t.TempDir(), "--jq", ".ABX_PROVIDER"})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for out.String() == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 || out.String() != "alicloud-container\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Not isolated: said on stderr whatever the form.
	if !strings.Contains(errOut.String(), "NOT isolated") {
		t.Errorf("stderr %q lacks the isolation warning", errOut)
	}
}
