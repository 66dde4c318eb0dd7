package envd

import "testing"

// A pid is reused once its process is reaped, which may be before that
// process is forgotten: forgetting it must not drop the process that now
// holds the pid.
func TestForgetLeavesAProcessThatReusedThePid(t *testing.T) {
	t.Parallel()
	ps := newProcesses(nil)
	ended, reused := &proc{pid: 4242}, &proc{pid: 4242}
	ps.byID[ended.pid] = ended
	ps.byID[reused.pid] = reused // started after ended was reaped
	ps.forget(ended)
	if ps.byID[4242] != reused {
		t.Fatal("the process that reused the pid was forgotten with the one that ended")
	}
	ps.forget(reused)
	if _, ok := ps.byID[4242]; ok {
		t.Fatal("an ended process stayed in the table")
	}
}
