//go:build unix

package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// The clock of cmdtest's streams: 2026-01-02 15:04:05 UTC.
var testNow = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// fresh is a stub whose new sandbox ends when the service says: its
// endAt is whole seconds on the service's clock, a little behind abx's.
type fresh struct {
	stub
	end time.Time
}

func (f *fresh) Create(context.Context, provider.CreateRequest) (*provider.Sandbox, error) {
	s := sb
	s.EndAt = f.end
	return &s, nil
}

// A confirmation says what was asked, or rounds the service's deadline to
// the nearest, never down: 90m is not "1h", and 5m is not "4m".
func TestConfirmationsDoNotRoundDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(io *output.Streams, p *output.Printer) error
		want string
	}{
		{"timeout 90m", func(io *output.Streams, p *output.Printer) error {
			return runTimeout(ctx, &TimeoutOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: "sb1", Timeout: 90 * time.Minute})
		}, "sandbox sb1 now ends in 1h30m (at 16:34:05)\n"},
		{"timeout 90s", func(io *output.Streams, p *output.Printer) error {
			return runTimeout(ctx, &TimeoutOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: "sb1", Timeout: 90 * time.Second})
		}, "sandbox sb1 now ends in 1m30s (at 15:05:35)\n"},
		{"create with the server's default", func(io *output.Streams, p *output.Printer) error {
			prov := &fresh{end: testNow.Add(5*time.Minute - time.Second)}
			return runCreate(ctx, &CreateOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(prov), Request: provider.CreateRequest{Template: "base"}})
		}, "sandbox " + sb.SandboxID + " created, ends in 5m (at 15:09:04)\n"},
		{"create --timeout 90s", func(io *output.Streams, p *output.Printer) error {
			prov := &fresh{end: testNow.Add(89 * time.Second)}
			return runCreate(ctx, &CreateOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(prov),
				Request: provider.CreateRequest{Template: "base", Timeout: 90 * time.Second}})
		}, "sandbox " + sb.SandboxID + " created, ends in 1m30s (at 15:05:34)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, s := factorytest.NewFactory(true, nil, output.Table)
			if err := tc.run(f.IO, f.Printer); err != nil {
				t.Fatal(err)
			}
			if got := s.ErrOut.String(); got != tc.want {
				t.Errorf("stderr %q, want %q", got, tc.want)
			}
		})
	}
}

// running is a stub whose sandbox was running when connect reached it.
type running struct{ stub }

func (running) Connect(context.Context, string, time.Duration) (*provider.ConnectResult, error) {
	return &provider.ConnectResult{Sandbox: sb}, nil
}

// A paused sandbox keeps no deadline, so connect and resume give it a new
// one, --timeout from now: the note says when it now ends, and without
// --timeout that the 5 minutes were the default, not what it had before.
func TestResumingSaysTheNewDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const id = "default--code-interpreter-x7k2p"
	const hint = ": a paused sandbox keeps no deadline, and resuming gave it --timeout's default; pass --timeout for longer"
	cases := []struct {
		name string
		run  func(io *output.Streams, p *output.Printer) error
		want string
	}{
		{"connect of a paused sandbox", func(io *output.Streams, p *output.Printer) error {
			return runConnect(ctx, &ConnectOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: id})
		}, "sandbox " + id + " resumed, ends in 6m (at 15:10:05)" + hint + "\n"},
		{"connect --timeout of a paused sandbox", func(io *output.Streams, p *output.Printer) error {
			return runConnect(ctx, &ConnectOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: id, Timeout: time.Hour})
		}, "sandbox " + id + " resumed, ends in 6m (at 15:10:05)\n"},
		{"connect of a running sandbox", func(io *output.Streams, p *output.Printer) error {
			return runConnect(ctx, &ConnectOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&running{}), ID: id})
		}, "sandbox " + id + " already running, ends in 6m (at 15:10:05)\n"},
		{"resume", func(io *output.Streams, p *output.Printer) error {
			return runResume(ctx, &ResumeOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: id})
		}, "sandbox " + id + " resumed, ends in 6m (at 15:10:05)" + hint + "\n"},
		{"resume --timeout", func(io *output.Streams, p *output.Printer) error {
			return runResume(ctx, &ResumeOptions{IO: io, Printer: p, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: id, Timeout: time.Hour})
		}, "sandbox " + id + " resumed, ends in 6m (at 15:10:05)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, s := factorytest.NewFactory(true, nil, output.Table)
			if err := tc.run(f.IO, f.Printer); err != nil {
				t.Fatal(err)
			}
			if got := s.ErrOut.String(); got != tc.want {
				t.Errorf("stderr %q, want %q", got, tc.want)
			}
		})
	}
}
