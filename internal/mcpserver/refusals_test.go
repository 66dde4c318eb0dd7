//go:build unix

package mcpserver_test

import (
	"testing"
)

// An environment variable no process can be given (a name that is empty
// or holds '=' or NUL, a value that holds NUL) is refused as bad input
// before anything is sent, as a path or cwd with NUL is.
func TestEnvsAProcessCannotTakeAreRefused(t *testing.T) {
	t.Parallel()
	opts, m := onEmulator(t)
	cs := serve(t, opts)
	id := create(t, cs, "base")
	sent := len(m.Requests())
	for _, envs := range []map[string]string{
		{"A\x00B": "x"},
		{"A": "x\x00y"},
		{"A=B": "x"},
		{"": "x"},
	} {
		mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "true", "envs": envs}, nil), "E1002")
		mustFail(t, call(t, cs, "sandbox_create", map[string]any{"template": "base", "envs": envs}, nil), "E1002")
	}
	mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "true", "cwd": "/tmp\x00x"}, nil), "E1002")
	if n := len(m.Requests()); n != sent {
		t.Errorf("%d requests were sent for refused arguments: %+v", n-sent, m.Requests()[sent:])
	}
}

// exec's command is one argument of bash -c, which NUL would end: a
// command that holds one is refused as bad input before anything is sent,
// in the background too, rather than run into exit 126.
func TestACommandWithNULIsRefused(t *testing.T) {
	t.Parallel()
	opts, m := onEmulator(t)
	cs := serve(t, opts)
	id := create(t, cs, "base")
	sent := len(m.Requests())
	for _, background := range []bool{false, true} {
		mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "true\x00rm -rf ~", "background": background}, nil), "E1002")
	}
	if n := len(m.Requests()); n != sent {
		t.Errorf("%d requests were sent for a refused command: %+v", n-sent, m.Requests()[sent:])
	}
}
