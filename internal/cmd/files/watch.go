package files

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// WatchOptions are the inputs of `abx files watch`.
type WatchOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
	Recursive bool
	// Timeout, when given, ends the watch with E6001 (exit 124) unless
	// Count changes came first.
	Timeout *time.Duration
	// Count ends the watch, with success, after that many changes; 0 for
	// none.
	Count int
}

// NewCmdWatch builds `abx files watch`.
func NewCmdWatch(f *cmdutil.Factory, runF func(context.Context, *WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	var timeout string
	cmd := &cobra.Command{
		Use:   "watch ID PATH",
		Short: "Watch a directory for changes",
		Long: `Print each change in a sandbox directory as it happens: its name (relative to PATH),
its type (create, write, remove, rename, chmod) and when abx heard of it. One change
of a file can be several events (a new file written is a create, then writes).
--recursive watches the directories below PATH too, new ones included (envd 0.1.4 or
newer; the clusters run 0.2.10).

Runs until Ctrl-C (exit 0, its normal end). --count N stops after N events (exit 0); --timeout D
stops after D (exit 124 when fewer than --count events came, or without --count).
A PATH that does not exist exits 3; a file, 1.

A table on a terminal (tab-separated when piped, -o name the names alone); -o json
prints JSON Lines: {"type":"create","name":"a.txt","path":"out/a.txt","time":"…"}.

When the stream is cut (a proxy's timeout, the network) while the sandbox runs on, abx
watches again within --idle-timeout and says so on stderr (a "reconnect" event with
-o json): changes during the gap may be missing. A sandbox gone or paused ends the
watch with the reason.`,
		Example: `  abx files watch "$id" /home/user/out
  abx files watch "$id" /home/user/out --count 1 --timeout 5m   # wait for the first result
  abx files watch "$id" . --recursive -o json | jq -r 'select(.type=="write") | .path'`,
		Args: cmdutil.ExactArgs("ID", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.parse(cmd, args); err != nil {
				return err
			}
			if cmd.Flags().Changed("timeout") {
				// Its syntax; its bounds are the watch's.
				d, err := cmdutil.ParseDuration("--timeout", timeout)
				if err != nil {
					return err
				}
				opts.Timeout = &d
			}
			return cmdutil.Run(cmd, opts, runF, runWatch)
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&opts.Recursive, "recursive", "r", false, "watch the directories below PATH too")
	fl.StringVar(&timeout, "timeout", "", "stop after this long ("+strings.Replace(sandboxes.Op("files.watch").Input("timeout").Range(), " and ", " to ", 1)+
		"), exit 124 unless --count events came (default: no limit)")
	fl.IntVarP(&opts.Count, "count", "n", 0, "stop after this many events, exit 0 (default: no limit)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandboxFiles(f, 1)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "files.watch", "path=PATH")
}

// The JSON Lines events of files watch (docs/json.md, files watch).
type (
	// changeEvent is one change: type is envd's kind of it.
	changeEvent struct {
		Type string    `json:"type"`
		Name string    `json:"name"`
		Path string    `json:"path"`
		Time time.Time `json:"time"`
	}
	// reconnectEvent says the stream was cut and the watch taken up
	// again, as exec's does (docs/json.md): changes in the gap, in
	// seconds, may be missing.
	reconnectEvent struct {
		Type     string  `json:"type"`
		CutAfter float64 `json:"cutAfter"`
		Gap      float64 `json:"gap"`
		Attempts int     `json:"attempts"`
		Reason   string  `json:"reason"`
	}
)

func runWatch(ctx context.Context, opts *WatchOptions) error {
	st := opts.Printer.Stream(output.StreamSpec{Header: []string{"name", "type", "time"}})
	defer st.Discard()
	w := sandboxes.Watching{Dir: opts.Path, Recursive: opts.Recursive, Timeout: opts.Timeout, Count: opts.Count,
		Started: func() { opts.Printer.Note("watching %s:%s; Ctrl-C stops", opts.ID, opts.Path) },
		Resumed: func(r envd.Resume) error {
			return st.Note(reconnectEvent{Type: "reconnect", CutAfter: output.Seconds(r.Lasted),
				Gap: output.Seconds(r.Gap()), Attempts: r.Attempts, Reason: r.Reason()},
				"abx: the watch of %s:%s was cut after %.1fs (%s); watching again %.1fs later: changes in between may be missing",
				opts.ID, opts.Path, r.Lasted.Seconds(), r.Reason(), r.Gap().Seconds())
		}}
	err := opts.Sandboxes.Watch(ctx, opts.ID, opts.User, w, func(ev envd.FileEvent) error {
		now := opts.IO.Now()
		return st.Row(changeEvent{Type: ev.Op, Name: ev.Name, Path: path.Join(opts.Path, ev.Name), Time: now.UTC().Truncate(time.Millisecond)},
			ev.Name, ev.Op, opts.clock(now))
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return nil // Ctrl-C is a watch's normal end (docs/exit-codes.md)
	case errors.Is(err, envd.ErrWatchCut) || errors.Is(err, envd.ErrNotRunning):
		e := abxerr.From(err)
		e.Hint = fmt.Sprintf("see whether sandbox %s still runs with 'abx info %s' ('abx resume %s' if it is paused), then watch again",
			opts.ID, opts.ID, opts.ID)
		return e
	}
	return err
}

// clock is when abx heard of a change: the time of day on a terminal, a
// full RFC 3339 time with milliseconds when piped.
func (opts *WatchOptions) clock(t time.Time) string {
	if opts.IO.StdoutTTY {
		return t.Local().Format("15:04:05.000")
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
