package remoteproc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/shell"
)

// The stdin relay: how abx's stdin reaches a command, end of input
// included, on an envd that cannot close a process's stdin (before 0.5.2,
// which is what clusters run: docs/exec.md, "Input").
//
// envd gives every process a stdin pipe that stays open until the process
// ends, so a command reading it never sees end of file. A terminal can say
// end of file, though: a line discipline in canonical mode hands its reader
// a read of 0 bytes for Ctrl-D typed at the start of a line. So abx starts
// a second process on a terminal of envd's, the relay, which copies what it
// reads there to a FIFO in a directory of its own, and the command reads
// the FIFO as its stdin:
//
//	abx stdin ──SendInput(pty)──► relay's terminal ──cat──► FIFO ──► command's stdin
//
// The command's stdout and stderr stay its own pipes, as with any exec.
// What abx types is escaped so that every byte arrives as itself (encode):
// each byte the line discipline could read as a key (the controls, DEL) is
// preceded by Ctrl-V, "take the next one literally"; the bytes go in pieces
// of at most relayPiece, each pushed to the reader by a Ctrl-D after it
// (Ctrl-D after some bytes hands them over without a newline), so that no
// line outgrows the discipline's buffer; at the end a Ctrl-D on an empty
// line is end of file: cat ends, the FIFO closes, the command reads EOF.

// relayName is the relay's $0, so a listing shows what it is.
const relayName = "abx-stdin"

// relayScript sets the relay's terminal to pass bytes through (no echo, no
// signals, no flow control, no CR/NL mapping, Ctrl-V and Ctrl-D as abx
// uses them), makes a directory only its user can enter ($1) with the FIFO
// in it, says "ready" and becomes cat writing to the FIFO, which waits
// until the command opens it for reading: the two meet there, and nothing
// is written before the command reads. Whoever is done with it removes the
// whole directory (the command once it has opened the FIFO, abx's stop,
// the watchdog): a '>' to the FIFO after that fails for want of the
// directory, where one to a removed FIFO would make a plain file of its
// name and leave it.
//
// A watchdog looks ten times a second while the FIFO is there. When the
// relay is gone first (abx stopped it because the command never started),
// it removes the directory; when no command has opened the FIFO within 600
// looks (a minute where sleep takes fractions: an abx that died between the
// two starts), it removes the directory and ends the relay. The relay
// ignores SIGHUP before the watchdog is forked, so the watchdog is born
// ignoring it: the kernel sends it to the relay's process group when the
// relay, its terminal's session leader, dies, which is when the watchdog
// has work to do.
const relayScript = `stty -echo -echonl -isig -ixon -ixoff -icrnl -inlcr -igncr -istrip icanon iexten lnext '^V' eof '^D' -opost 2>&1 || exit 126
mkdir -m 700 "$1" && mkfifo -m 600 "$1/in" || exit 126
trap '' HUP
r=$$
{
  i=0
  while [ -p "$1/in" ]; do
    if ! kill -0 $r 2>/dev/null; then rm -rf "$1"; exit; fi
    if [ $i -ge 600 ]; then rm -rf "$1"; kill -KILL $r; exit; fi
    i=$((i+1))
    sleep 0.1 || sleep 1
  done
} </dev/null >/dev/null 2>&1 &
echo ready
exec cat >"$1/in"
`

// relayPiece bounds the bytes between two pushes: well under the 4096 a
// Linux line discipline holds of one line.
const relayPiece = 1024

// The keys the relay's terminal reads.
const (
	ctrlD = 0x04 // push what was typed; on an empty line, end of file
	ctrlV = 0x16 // the next byte is taken literally
)

// encode appends src to dst as the relay's terminal must be typed to read
// src back byte for byte: pieces of at most relayPiece bytes, each control
// byte and DEL after a Ctrl-V, each piece followed by a Ctrl-D.
func encode(dst, src []byte) []byte {
	for len(src) > 0 {
		n := min(len(src), relayPiece)
		for _, b := range src[:n] {
			if b < 0x20 || b == 0x7f {
				dst = append(dst, ctrlV)
			}
			dst = append(dst, b)
		}
		dst = append(dst, ctrlD)
		src = src[n:]
	}
	return dst
}

// relay is a running relay: the pid to type into, and the directory of
// the FIFO the command reads (dir/in).
type relay struct {
	c   *envd.Client
	pid uint32
	dir string
}

// relayReady bounds the wait for the relay's "ready".
const relayReady = 30 * time.Second

// startRelay starts the relay and waits for its "ready"; it then stops
// following its stream (the relay writes nothing more: nothing can wedge).
func startRelay(ctx context.Context, c *envd.Client) (*relay, error) {
	name, err := relayDir()
	if err != nil {
		return nil, err
	}
	r := &relay{c: c, dir: name}
	// No deadline on the stream: envd would kill the relay when it passed.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var late atomic.Bool
	t := time.AfterFunc(relayReady, func() { late.Store(true); cancel() })
	defer t.Stop()
	var said bytes.Buffer
	end, err := c.Start(ctx, envd.Command{Cmd: "/bin/bash", Args: []string{"-c", relayScript, relayName, name},
		PTY: &envd.Size{Cols: 80, Rows: 24}}, func(ev envd.Event) error {
		switch {
		case ev.Started != nil:
			r.pid = *ev.Started
		case ev.Stdout != nil:
			if said.Len() < 4<<10 {
				said.Write(ev.Stdout)
			}
			if strings.Contains(said.String(), "ready\n") {
				return errDetach
			}
		}
		return nil
	})
	if errors.Is(err, errDetach) && r.pid != 0 {
		return r, nil
	}
	if r.pid != 0 && err != nil {
		r.stop(ctx) // started, but not ready in time or abx was interrupted: no relay waits on
	}
	switch {
	case err == nil:
		return nil, abxerr.New(abxerr.Rejected, "the sandbox could not relay stdin to the command (exit status %d): %s", end.ExitCode, strings.TrimSpace(said.String())).
			WithHint("the relay needs bash, stty, mkfifo and cat in the sandbox and a writable /tmp (docs/exec.md, \"Input\")")
	case late.Load():
		return nil, abxerr.New(abxerr.Timeout, "the sandbox's stdin relay did not start within %s", relayReady)
	}
	return nil, startError(err)
}

// relayDir is a directory name no other command uses.
func relayDir() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", abxerr.New(abxerr.Internal, "cannot make a name for the stdin relay: %v", err)
	}
	return "/tmp/.abx-stdin-" + hex.EncodeToString(b[:]), nil
}

// redirect is the command's stdin: the FIFO, whose directory is removed
// once it is opened (both ends hold it open; no name is left behind).
func (r *relay) redirect() string {
	return fmt.Sprintf("exec <%s; rm -rf %s; ", shell.Quote(r.dir+"/in"), shell.Quote(r.dir))
}

// feed types in to the relay, and at the end of in, end of file.
func (r *relay) feed(ctx context.Context, in io.Reader) error {
	var buf []byte
	_, err := feed(ctx, in, func(ctx context.Context, data []byte) error {
		buf = encode(buf[:0], data)
		return r.c.SendPTY(ctx, r.pid, buf)
	})
	if err != nil {
		return err
	}
	return r.c.SendPTY(ctx, r.pid, []byte{ctrlD})
}

// stop ends the relay when the command has ended: what the command did not
// read is of no use, and a relay waiting on its terminal would wait for
// ever. The FIFO's directory goes too, in case the command never opened
// it (it did not start: a bad --cwd, an unknown user, Ctrl-C between the
// starts); after a command that did, it is gone already and the removal is
// a no-op. Each within signalWait. (The relay's watchdog removes it too, a
// tenth of a second after the relay is gone.)
func (r *relay) stop(ctx context.Context) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), signalWait)
	defer cancel()
	_ = r.c.Signal(kctx, r.pid, true)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), signalWait)
	defer cancel()
	_ = r.c.Remove(rctx, r.dir)
}
