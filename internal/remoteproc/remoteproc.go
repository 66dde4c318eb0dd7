// Package remoteproc runs and follows processes in a sandbox through envd:
// the command line bash is given, abx's stdin streamed to it, Ctrl-C
// forwarded as signals, deadlines, and the exit status it ended with. It
// knows nothing of the command line or of output formats: what a process
// does goes to a Sink.
package remoteproc

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/interrupt"
	"github.com/abx-dev/abx/internal/shell"
)

// Spec is a command to run in a sandbox.
type Spec struct {
	Argv    []string
	Cwd     string // "" is the user's home
	Env     map[string]string
	Timeout time.Duration // 0: none
	// Interactive keeps the command's stdin open: Stdin is streamed to it
	// (or, in the background, it waits for data sent later).
	Interactive bool
	Stdin       io.Reader
	// Signals delivers Ctrl-C; nil uses the process's own.
	Signals <-chan os.Signal
}

// Sink is told what a process does, as it happens.
type Sink interface {
	Started(pid uint32) error
	Stdout(data []byte) error
	Stderr(data []byte) error
}

// ReconnectSink is a Sink that is also told when the stream was cut and
// taken up again (Follower): output of the gap may be missing.
type ReconnectSink interface {
	Sink
	Reconnected(r Reconnect) error
}

// follower follows a process for a sink: each event to on, each
// reconnection to the sink when it wants to know.
func follower(c *envd.Client, sink Sink, on func(envd.Event) error) Follower {
	f := Follower{Client: c, Event: on}
	if rs, ok := sink.(ReconnectSink); ok {
		f.Reconnected = rs.Reconnected
	}
	return f
}

// Exit is how a process ended.
type Exit struct {
	Code   int    // its status, or 128+n when signal n ended it
	Status string // envd's words: "exit status 3", "signal: killed"
}

// stdinChunk bounds each piece of stdin sent: abx's stdin is streamed,
// never read whole.
const stdinChunk = 64 << 10

// command wraps the line for envd. stdin is the redirection of the
// command's stdin that goes before its line: "" keeps envd's pipe (an
// interactive command on an envd that can close it), "exec </dev/null; "
// for a command that reads no input (envd 0.2.10 gives every process a
// pipe that never closes, so a command reading stdin would wait for ever),
// the relay's FIFO otherwise (relay). A background command's output goes
// nowhere: envd drops output nobody reads, and a full pipe can wedge the
// process.
//
// The line runs under the group wrapper (see wrapper), which envd starts
// as /bin/bash -c WRAPPER abx-exec LINE REDIRECTIONS: the line apart, so
// that a listing shows the user's command as written (Shown).
func command(spec Spec, stdin string, background bool) envd.Command {
	redirect := stdin
	if background {
		redirect += noOutput
	}
	return envd.Command{
		Cmd:   "/bin/bash",
		Args:  []string{"-c", wrapper, wrapperName, shell.Line(spec.Argv), redirect},
		Env:   spec.Env,
		Cwd:   spec.Cwd,
		Stdin: spec.Interactive && stdin == "",
	}
}

// noStdin is the redirection of a command that reads no input, noOutput
// that of a background command.
const (
	noStdin  = "exec </dev/null; "
	noOutput = "exec >/dev/null 2>&1; "
)

// stdinOf is the redirection of a command abx does not relay input to.
func stdinOf(spec Spec) string {
	if spec.Interactive {
		return ""
	}
	return noStdin
}

// Grace is how long a command's process group has to end after the first
// Ctrl-C, or a SIGTERM from 'abx ps kill', before the wrapper kills it.
const Grace = 2 * time.Second

// wrapperName is the wrapper's $0: how a listing recognises a command abx
// started (Shown).
const wrapperName = "abx-exec"

// wrapper runs the command line $1, after abx's redirections $2, with
// bash -l -c in a process group of its own and stops that whole group, not just its first process.
//
// envd signals one pid, and on a real sandbox the processes it starts
// share envd's own process group, so neither envd nor abx can signal a
// group: a SIGTERM to bash leaves the children bash started running. The
// wrapper is that one pid, and it makes the group itself: with job control
// on (set -m) bash puts an asynchronous command in a new group whose id is
// its pid, $p, and leaves its stdin alone (without job control it would
// read /dev/null). Nothing here needs more than bash and kill, which every
// image abx runs commands on already has.
//
//   - TERM, INT and HUP go on to the whole group; a second one, or the end
//     of the grace (2 s, or 2 to 3 s by $SECONDS on bash before 5.0, which
//     lacks EPOCHREALTIME), sends KILL to the group. The wrapper then
//     exits with the command's status, 128+n when signal n ended it, as
//     bash would.
//   - A KILL to the wrapper itself (envd's --timeout deadline, a second
//     Ctrl-C, 'ps kill --signal KILL', the emulator tearing a sandbox
//     down) cannot be caught: a watcher in a group of its own holds the
//     read end of a pipe, and kills the group when the pipe closes
//     without the wrapper's word ("end") that the command ended by
//     itself. The watcher is in place before the command starts, and the
//     command's first act is to write its group to the pipe (the wrapper
//     writes it too, for a bash without $BASHPID), so a KILL at any
//     moment of the start, even right after the fork, finds the group
//     known: envd reports a start as soon as it has forked the wrapper,
//     and a 'ps kill --signal KILL' may follow at once. Children a
//     command leaves behind on purpose (nohup, &) keep running after a
//     normal end, as they did before.
//   - The wrapper's own stderr is /dev/null (bash with job control reports
//     finished jobs on it); the command gets the real one from fd 3.
//   - Only processes that are not zombies count as left in the group: an
//     orphan that exited stays a zombie until the sandbox's init reaps it,
//     which may be never. /proc tells them apart; without it kill -0 does.
//   - With job control, wait also returns when the command is stopped
//     (SIGSTOP): the wrapper then waits on, looking once a second, rather
//     than end while the command lives; a signal it passes on is followed
//     by SIGCONT, so that a stopped command can act on it.
const wrapper = `exec 3>&2 2>/dev/null
set -m
n=0 p=
on() {
  n=$((n+1))
  [ -n "$p" ] || return
  if [ $n -gt 1 ]; then kill -KILL -- -$p; else kill -$1 -- -$p; kill -CONT -- -$p; fi
}
trap 'on TERM' TERM
trap 'on INT' INT
trap 'on HUP' HUP
exec 4> >(exec 5<&0 >/dev/null 3>&-; set -m; { q=; while read -r l <&5; do [ "$l" = end ] && exit; q=${q:-$l}; done; [ -z "$q" ] || kill -KILL -- -$q; } &)
{ echo $BASHPID >&4; exec /bin/bash -l -c "$2$1" 2>&3 3>&- 4>&-; } &
p=$!
echo $p >&4
[ $n = 0 ] || kill -TERM -- -$p
alive() {
  kill -0 -- -$p || return 1
  [ -r /proc/self/stat ] || return 0
  local f s
  for f in /proc/[0-9]*/stat; do
    read -r s <"$f" || continue
    s=${s##*) }
    set -- $s
    [ "$3" = "$p" ] && [ "$1" != Z ] && return 0
  done
  return 1
}
s=
while [ $n = 0 ]; do
  wait $p
  s=$?
  [ $n = 0 ] && kill -0 $p || break
  sleep 1
done
if [ $n != 0 ]; then
  t0=$SECONDS e0=${EPOCHREALTIME//[!0-9]/}
  while alive; do
    if [ $n -gt 1 ] || [ $SECONDS -gt $((t0+2)) ] ||
      { [ -n "$e0" ] && [ $((${EPOCHREALTIME//[!0-9]/}-e0)) -ge 2000000 ]; }; then
      kill -KILL -- -$p
      break
    fi
    sleep 0.1 || sleep 1
  done
  wait $p
  s=$?
fi
trap '' PIPE
echo end >&4
exit $s
`

// Shown is a listed process as people wrote it: a command abx started
// reads as the bash line it runs, without the wrapper around it or abx's
// redirections (a command started by an abx before they were apart shows
// them), and the stdin relay of an exec -i as abx-stdin FIFO.
func Shown(p envd.Process) envd.Process {
	switch {
	case started(p):
		p.Args = []string{"-l", "-c", p.Args[3]}
	case p.Cmd == "/bin/bash" && len(p.Args) == 4 && p.Args[0] == "-c" && p.Args[2] == relayName:
		// exec -i's relay (relay.go): its name and the FIFO it fills.
		p.Cmd, p.Args = relayName, []string{p.Args[3]}
	}
	return p
}

// Discarded reports whether a listed process is a command abx started in
// the background, whose output goes to /dev/null: attaching to it shows
// nothing but its end.
func Discarded(p envd.Process) bool {
	switch {
	case !started(p):
		return false
	case len(p.Args) == 5:
		return strings.Contains(p.Args[4], noOutput)
	}
	return strings.Contains(p.Args[3], noOutput)
}

// started reports whether abx's wrapper runs the process.
func started(p envd.Process) bool {
	return p.Cmd == "/bin/bash" && (len(p.Args) == 4 || len(p.Args) == 5) && p.Args[0] == "-c" && p.Args[2] == wrapperName
}

// forward sends each event's output to the sink.
func forward(sink Sink, ev envd.Event) error {
	switch {
	case ev.Stdout != nil:
		return sink.Stdout(ev.Stdout)
	case ev.Stderr != nil:
		return sink.Stderr(ev.Stderr)
	}
	return nil
}

// Feed streams r to the process's stdin. It stops when ctx ends, even
// while it waits for r (Ctrl-C with nothing typed).
func Feed(ctx context.Context, c *envd.Client, pid uint32, r io.Reader) (int, error) {
	return feed(ctx, r, func(ctx context.Context, data []byte) error { return c.SendStdin(ctx, pid, data) })
}

// feed reads r in pieces of at most stdinChunk and hands each to send,
// until r ends or ctx does.
func feed(ctx context.Context, r io.Reader, send func(context.Context, []byte) error) (int, error) {
	r = interrupt.Reader(ctx, r)
	buf := make([]byte, stdinChunk)
	sent := 0
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if err := send(ctx, buf[:n]); err != nil {
				return sent, err
			}
			sent += n
		}
		if errors.Is(rerr, io.EOF) {
			return sent, nil
		}
		if rerr != nil && ctx.Err() != nil {
			return sent, rerr
		}
		if rerr != nil {
			return sent, abxerr.New(abxerr.InvalidInput, "cannot read stdin: %v", rerr)
		}
	}
}

// Attach follows a running process's output until it ends, across cuts of
// the stream (Follower). Output from before is not kept by envd.
func Attach(ctx context.Context, c *envd.Client, pid uint32, sink Sink) (*Exit, error) {
	f := follower(c, sink, func(ev envd.Event) error { return forward(sink, ev) })
	end, err := f.Follow(ctx, pid, func(ctx context.Context, on func(envd.Event) error) (*envd.End, error) {
		return c.Connect(ctx, pid, on)
	})
	if err != nil {
		return nil, envd.AsError(err)
	}
	x := exitOf(end)
	if err := impossible(x); err != nil {
		return nil, err
	}
	return x, nil
}

// impossible refuses an exit status no process can have: a status is a
// byte, so passing 300 through would exit 44. Only a broken or hostile
// server reports one.
func impossible(x *Exit) error {
	if x.Code < 0 || x.Code > 255 {
		return abxerr.New(abxerr.BadResponse, "the sandbox reported exit status %d (%s), which no process can have", x.Code, x.Status).
			WithHint("the command ran, but how it ended is unknown; check its effects")
	}
	return nil
}

// Background starts the command, returns its pid and detaches.
func Background(ctx context.Context, c *envd.Client, spec Spec) (uint32, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var pid uint32
	_, err := c.Start(ctx, command(spec, stdinOf(spec), true), func(ev envd.Event) error {
		if ev.Started != nil {
			pid = *ev.Started
			return errDetach
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDetach) {
		return 0, startError(err)
	}
	if pid == 0 {
		return 0, abxerr.New(abxerr.BadResponse, "envd did not report the process's pid")
	}
	return pid, nil
}

// errDetach stops following a stream on purpose.
var errDetach = errors.New("detach")

// startError reports a failed start; a command envd could not find has a
// status of its own (127, as a shell says).
func startError(err error) error {
	err = envd.AsError(err)
	if errors.Is(err, envd.ErrCommandNotFound) {
		return abxerr.CommandNotFound(err)
	}
	return err
}

// exitOf is the status a process ended with: its own, or 128+n for a
// signal (envd reports those as -1 with the signal in the status).
func exitOf(end *envd.End) *Exit {
	x := &Exit{Code: end.ExitCode, Status: end.Status}
	if end.Exited || end.ExitCode >= 0 {
		return x
	}
	x.Code = abxerr.SignalStatus(int(syscall.SIGKILL))
	for n, name := range signalNames {
		if strings.HasSuffix(end.Status, name) {
			x.Code = abxerr.SignalStatus(n)
		}
	}
	return x
}

// signalNames are how Go (and so envd) words the signals a command dies of.
var signalNames = map[int]string{
	1: "hangup", 2: "interrupt", 3: "quit", 4: "illegal instruction", 6: "aborted", 7: "bus error",
	8: "floating point exception", 9: "killed", 11: "segmentation fault", 13: "broken pipe",
	14: "alarm clock", 15: "terminated", 10: "user defined signal 1", 12: "user defined signal 2",
}
