//go:build linux

package process

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
)

// exec -i: finite input ends the command with its own status, on the
// clusters' envd (0.2.10, no CloseStdin: through the relay) and on one
// that can close stdin (0.6.13), byte for byte (docs/exec.md, "Input").
func TestExecInteractiveInputEnds(t *testing.T) {
	t.Parallel()
	random := make([]byte, 1<<20)
	_, _ = rand.Read(random)
	sum := sha256.Sum256(random)
	for _, version := range []string{"0.2.10", "0.6.13"} {
		t.Run("envd "+version, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, version)
			for _, tc := range []struct {
				name, line string
				in         []byte
				out        string
				code       int
			}{
				{"lines", "wc -l", []byte("a\nb\n"), "2\n", 0},
				{"its own status", "cat >/dev/null; exit 3", []byte("x"), "", 3},
				{"nothing", "wc -c", nil, "0\n", 0},
				{"bytes", "sha256sum | cut -c1-64", random, hex.EncodeToString(sum[:]) + "\n", 0},
				{"keys and no last newline", "od -An -tx1 | tr -s ' \\n' ' '", []byte("\x03\x04\x16\x1a\r\x7f\x00end"),
					" 03 04 16 1a 0d 7f 00 65 6e 64 ", 0},
				{"read in part", "head -c 5", bytes.Repeat([]byte("y"), 4<<20), "yyyyy", 0},
			} {
				opts, out := s.exec(t, tc.line, make(chan os.Signal))
				opts.Interactive = true
				opts.IO.In = bytes.NewReader(tc.in)
				err := start(t, func() error { return runExec(t.Context(), opts) })()
				if code := statusOf(err); code != tc.code || out.Out.String() != tc.out {
					t.Errorf("%s: exit %d (%v), stdout %q; want %d, %q\nstderr: %s", tc.name, code, err, out.Out, tc.code, tc.out, out.ErrOut)
				}
			}
			// A command that never starts (a working directory that is not
			// there) leaves its relay and FIFO behind no more than one that ran.
			opts, _ := s.exec(t, "cat", make(chan os.Signal))
			opts.Interactive, opts.Cwd = true, "/no/such/dir"
			opts.IO.In = strings.NewReader("x")
			if err := start(t, func() error { return runExec(t.Context(), opts) })(); err == nil {
				t.Error("a command in a missing directory ran")
			}
			s.wantNoRelay(t)
		})
	}
}

// wantNoRelay fails when a relay runs on (envd lists it) or, where the
// sandbox has a view of its own, its FIFO or its watchdog is left, within a
// bound: the watchdog looks ten times a second.
func (s *sandbox) wantNoRelay(t *testing.T) {
	t.Helper()
	f, _ := s.factory(t)
	c, err := f.Sandboxes.Envd(t.Context(), s.id, "", provider.ProcessManage)
	if err != nil {
		t.Fatal(err)
	}
	// A relay abx killed leaves envd's list when envd has reaped it.
	relays := func() []envd.Process {
		list, err := c.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(list, func(p envd.Process) bool { return !slices.Contains(p.Args, "abx-stdin") })
	}
	left := relays()
	for deadline := time.Now().Add(within); len(left) > 0 && time.Now().Before(deadline); left = relays() {
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range left {
		t.Errorf("a relay runs on: %d %q", p.PID, p.Args[len(p.Args)-2:])
	}
	if jail.Available() != nil {
		return // /tmp and the process table are this machine's, shared with other tests
	}
	opts, out := s.exec(t, `for i in $(seq 100); do n=$(ls -a /tmp | grep -c abx-stdin); w=$(ps -eo args | grep -c '[.]abx-stdin-'); [ "$n$w" = 00 ] && break; sleep 0.1; done; echo "$n $w"; ls -la /tmp; ps -eo pid,stat,args`, make(chan os.Signal))
	_ = start(t, func() error { return runExec(t.Context(), opts) })()
	if got := out.Out.String(); !strings.HasPrefix(got, "0 0\n") {
		t.Errorf("FIFOs and watchdogs left behind: %q", got)
	}
}

// statusOf is the exit status exec's error gives.
func statusOf(err error) int {
	return abxerr.Exit(err, true)
}

// A stdin abx cannot read stops the command: it must not take what came
// before the failure for the whole of its input.
func TestExecInteractiveStdinThatFails(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	opts, out := s.exec(t, "wc -c; echo done", make(chan os.Signal))
	opts.Interactive = true
	opts.IO.In = io.MultiReader(strings.NewReader("some"), failing{})
	err := start(t, func() error { return runExec(t.Context(), opts) })()
	if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, "cannot read stdin") {
		t.Errorf("error %v, want E1002 cannot read stdin", err)
	}
	if strings.Contains(out.Out.String(), "done") {
		t.Errorf("the command went on with part of its input: %q", out.Out)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("input/output error") }

// BenchmarkExecStdin moves 16 MiB through exec -i into sha256sum: the
// relay (envd 0.2.10) against envd's own stdin pipe, closed at the end
// (0.6.13), on the same emulator (docs/exec.md, "Input", what each way
// costs).
func BenchmarkExecStdin(b *testing.B) {
	in := make([]byte, 16<<20)
	_, _ = rand.Read(in)
	for _, version := range []string{"0.2.10", "0.6.13"} {
		b.Run("envd "+version, func(b *testing.B) {
			s := newSandbox(b, version)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				opts, _ := s.exec(b, "sha256sum >/dev/null", make(chan os.Signal))
				opts.Interactive = true
				opts.IO.In = bytes.NewReader(in)
				if err := runExec(b.Context(), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
