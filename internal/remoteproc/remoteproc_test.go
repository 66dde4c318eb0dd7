package remoteproc

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/envd"
)

func TestCommandRunsTheLineUnderTheWrapper(t *testing.T) {
	t.Parallel()
	fifo := (&relay{dir: "/tmp/.abx-stdin-0a1b"}).redirect()
	for _, tc := range []struct {
		name       string
		spec       Spec
		stdin      string
		background bool
		line       string
		redirect   string
	}{
		{"shell line", Spec{Argv: []string{"echo hi | wc -c"}}, noStdin, false, "echo hi | wc -c", "exec </dev/null; "},
		{"argv", Spec{Argv: []string{"printf", "%s", "a b"}}, noStdin, false, "printf %s 'a b'", "exec </dev/null; "},
		{"interactive", Spec{Argv: []string{"cat"}, Interactive: true}, "", false, "cat", ""},
		{"relayed", Spec{Argv: []string{"wc -l"}, Interactive: true}, fifo, false, "wc -l",
			"exec </tmp/.abx-stdin-0a1b/in; rm -rf /tmp/.abx-stdin-0a1b; "},
		{"background", Spec{Argv: []string{"sleep 300"}}, noStdin, true, "sleep 300", "exec </dev/null; exec >/dev/null 2>&1; "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := command(tc.spec, tc.stdin, tc.background)
			want := []string{"-c", wrapper, wrapperName, tc.line, tc.redirect}
			if c.Cmd != "/bin/bash" || !reflect.DeepEqual(c.Args, want) || c.Stdin != (tc.stdin == "") {
				t.Errorf("got %s %q (stdin %v), want /bin/bash %q", c.Cmd, c.Args, c.Stdin, want)
			}
			// ps shows what was asked for, without abx's redirections.
			p := envd.Process{Cmd: c.Cmd, Args: c.Args}
			shown := Shown(p)
			if wantShown := []string{"-l", "-c", tc.line}; shown.Cmd != "/bin/bash" || !reflect.DeepEqual(shown.Args, wantShown) {
				t.Errorf("shown as %s %q, want /bin/bash %q", shown.Cmd, shown.Args, wantShown)
			}
			if Discarded(p) != tc.background {
				t.Errorf("discarded %v, want %v", Discarded(p), tc.background)
			}
		})
	}
	// A line of the user's own that redirects as abx does is the user's.
	c := command(Spec{Argv: []string{"exec >/dev/null 2>&1; sleep 1"}, Interactive: true}, "", false)
	if p := (envd.Process{Cmd: c.Cmd, Args: c.Args}); Discarded(p) || Shown(p).Args[2] != "exec >/dev/null 2>&1; sleep 1" {
		t.Errorf("the user's own redirection: discarded %v, shown %q", Discarded(p), Shown(p).Args)
	}
}

// exec -i's relay reads as its name and the FIFO it fills, not as its
// script.
func TestShownNamesTheRelay(t *testing.T) {
	t.Parallel()
	p := envd.Process{Cmd: "/bin/bash", Args: []string{"-c", relayScript, relayName, "/tmp/.abx-stdin-0a1b"}}
	if got := Shown(p); got.Cmd != "abx-stdin" || !reflect.DeepEqual(got.Args, []string{"/tmp/.abx-stdin-0a1b"}) || Discarded(p) {
		t.Errorf("shown as %s %q", got.Cmd, got.Args)
	}
}

// Processes abx did not start, or started before the wrapper, are shown
// as envd lists them.
func TestShownLeavesOtherProcessesAlone(t *testing.T) {
	t.Parallel()
	for _, p := range []envd.Process{
		{Cmd: "/bin/bash", Args: []string{"-l", "-c", "sleep 300"}},
		{Cmd: "/bin/bash", Args: []string{"-c", "echo $0 $1", "x", "y"}},
		{Cmd: "python3", Args: []string{"-c", "x", wrapperName, "y"}},
		{Cmd: "/bin/bash", Args: []string{}},
	} {
		if got := Shown(p); !reflect.DeepEqual(got, p) {
			t.Errorf("%q became %q", append([]string{p.Cmd}, p.Args...), append([]string{got.Cmd}, got.Args...))
		}
	}
}

// envd may report its kill at --timeout's deadline as the command's end
// before the stream ends: that is the timeout, and only a SIGKILL after
// the deadline is.
func TestAKillAtTheDeadlineIsTheTimeout(t *testing.T) {
	killed := &Exit{Code: 137, Status: "signal: killed"}
	passed, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	ahead, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	spec := Spec{Timeout: time.Second}
	for _, c := range []struct {
		name string
		ctx  context.Context
		spec Spec
		x    *Exit
		want bool
	}{
		{"killed after the deadline", passed, spec, killed, true},
		{"killed before the deadline", ahead, spec, killed, false},
		{"ended by itself after it", passed, spec, &Exit{Code: 1, Status: "exit status 1"}, false},
		{"terminated after it", passed, spec, &Exit{Code: 143, Status: "signal: terminated"}, false},
		{"no --timeout", passed, Spec{}, killed, false},
	} {
		if got := killedByDeadline(c.ctx, c.spec, c.x); got != c.want {
			t.Errorf("%s: killedByDeadline = %v, want %v", c.name, got, c.want)
		}
	}
}
