//go:build unix

package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

func TestNewCmdWatch(t *testing.T) {
	t.Parallel()
	after := func(d time.Duration) *time.Duration { return &d }
	parseVerb(t, NewCmdWatch, append(pathCases("watch", func(tg target) any { return WatchOptions{target: tg} }),
		verbCase{name: "flags", argv: []string{"sb-1", "out", "-r", "--timeout", "90s", "--count", "2"},
			want: WatchOptions{target: target{ID: "sb-1", Path: "out"}, Recursive: true, Timeout: after(90 * time.Second), Count: 2}},
		verbCase{name: "short flags, seconds", argv: []string{"sb-1", "out", "-n", "1", "--timeout", "5"},
			want: WatchOptions{target: target{ID: "sb-1", Path: "out"}, Timeout: after(5 * time.Second), Count: 1}},
		verbCase{name: "under a second", argv: []string{"sb-1", "out", "--timeout", "500ms"},
			want: WatchOptions{target: target{ID: "sb-1", Path: "out"}, Timeout: after(500 * time.Millisecond)}},
		verbCase{name: "bad timeout", argv: []string{"sb-1", "out", "--timeout", "soon"}, code: abxerr.InvalidInput, err: `invalid --timeout "soon"`},
		verbCase{name: "seconds with a fraction", argv: []string{"sb-1", "out", "--timeout", "1.5"},
			want: WatchOptions{target: target{ID: "sb-1", Path: "out"}, Timeout: after(1500 * time.Millisecond)}},
	))
	// The watch's bounds: a limit of 100ms to 30 days, when given, and a
	// count of changes that is one.
	refuseVerb(t, "watch", append(refusedTargets("x"),
		verbCase{name: "negative count", argv: []string{"sb-1", "out", "--count", "-1"}, code: abxerr.InvalidInput, err: "invalid --count -1"},
		verbCase{name: "zero timeout", argv: []string{"sb-1", "out", "--timeout", "0"}, code: abxerr.InvalidInput, err: `invalid --timeout "0": must be between 100ms and 30 days`},
		verbCase{name: "under 100ms", argv: []string{"sb-1", "out", "--timeout", "99ms"}, code: abxerr.InvalidInput, err: `invalid --timeout "99ms": must be between 100ms and 30 days`},
		verbCase{name: "negative timeout", argv: []string{"sb-1", "out", "--timeout", "-1s"}, code: abxerr.InvalidInput, err: `invalid --timeout "-1s": must be between 100ms and 30 days`},
		verbCase{name: "over 30 days", argv: []string{"sb-1", "out", "--timeout", "31d"}, code: abxerr.InvalidInput, err: `invalid --timeout "31d": must be between 100ms and 30 days`},
	))
	f, _ := factorytest.NewFactory(false, nil, "")
	if c := NewCmdWatch(f, nil); c.Flags().Lookup("recursive").Shorthand != "r" {
		t.Error("no -r")
	}
}

// watchRun is one `abx files watch` on the fake, while changes are made
// in the sandbox.
type watchRun struct {
	io  factorytest.Streams
	err error
}

// watch runs `files watch` with argv on s, printing in format (to a
// terminal when tty), while touch makes a new file in the sandbox's dir
// every 50 ms until the command is done: whenever the watch is in place,
// changes come. ctx, when it ends, is Ctrl-C.
func (s *fakeSandbox) watch(ctx context.Context, t *testing.T, tty bool, format output.Format, dir string, argv ...string) watchRun {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(s.home, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	f, io := s.factory(t, tty, format)
	cmd := NewCmdFiles(f)
	cmd.SetArgs(append([]string{"watch", s.id, dir}, argv...))
	cmd.SetIn(&bytes.Buffer{})
	cmd.SetOut(io.Out)
	cmd.SetErr(io.ErrOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	done := make(chan struct{})
	defer close(done)
	go func() {
		for i := 1; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			_ = os.WriteFile(filepath.Join(s.home, dir, fmt.Sprintf("f%d", i)), nil, 0o644)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return watchRun{io: io, err: cmd.ExecuteContext(ctx)}
}

func TestRunWatchShapes(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	stamp := "2026-01-02T15:04:05.000Z" // the test streams' clock
	t.Run("piped", func(t *testing.T) {
		t.Parallel()
		r := s.watch(t.Context(), t, false, "", "piped", "--count", "1", "--timeout", "50s")
		checkErr(t, r.err, "", "")
		if !regexp.MustCompile(`^f\d+\tcreate\t` + regexp.QuoteMeta(stamp) + `\n$`).MatchString(r.io.Out.String()) {
			t.Errorf("stdout %q", r.io.Out)
		}
		if r.io.ErrOut.String() != "watching "+s.id+":piped; Ctrl-C stops\n" {
			t.Errorf("stderr %q", r.io.ErrOut)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		t.Parallel()
		r := s.watch(t.Context(), t, true, "", "tty", "--count", "2", "--timeout", "50s")
		checkErr(t, r.err, "", "")
		if !regexp.MustCompile(`^NAME +TYPE +TIME\nf\d+ +create +\d\d:\d\d:\d\d\.000\nf\d+ +\w+ +\d\d:\d\d:\d\d\.000\n$`).MatchString(human.StripANSI(r.io.Out.String())) {
			t.Errorf("stdout %q", r.io.Out)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := s.watch(t.Context(), t, false, output.JSON, "json", "--count", "1", "--timeout", "50s")
		checkErr(t, r.err, "", "")
		var ev map[string]any
		if err := json.Unmarshal(r.io.Out.Bytes(), &ev); err != nil || strings.Count(r.io.Out.String(), "\n") != 1 {
			t.Fatalf("stdout %q: %v", r.io.Out, err)
		}
		name, _ := ev["name"].(string)
		if ev["type"] != "create" || !regexp.MustCompile(`^f\d+$`).MatchString(name) || ev["path"] != "json/"+name ||
			ev["time"] != "2026-01-02T15:04:05Z" || len(ev) != 4 {
			t.Errorf("event %v", ev)
		}
		if r.io.ErrOut.Len() != 0 {
			t.Errorf("stderr %q", r.io.ErrOut)
		}
	})
	t.Run("names", func(t *testing.T) {
		t.Parallel()
		r := s.watch(t.Context(), t, false, output.Name, "names", "--count", "1", "--timeout", "50s", "--recursive")
		checkErr(t, r.err, "", "")
		if !regexp.MustCompile(`^f\d+\n$`).MatchString(r.io.Out.String()) {
			t.Errorf("stdout %q", r.io.Out)
		}
	})
}

func TestRunWatchEnds(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "file", "x")
	s.put(t, "quiet/.keep", "")
	cases := []struct {
		name string
		argv []string
		code abxerr.Code
		want string
	}{
		{"missing", []string{"nope"}, abxerr.NotFound, "path /home/user/nope not found"},
		{"a file", []string{"file"}, abxerr.Rejected, "path /home/user/file not a directory"},
		{"timeout with count", []string{"quiet", "--count", "1", "--timeout", "300ms"}, abxerr.Timeout, "--timeout 300ms passed after 0 of 1 events"},
		{"timeout alone", []string{"quiet", "--timeout", "300ms"}, abxerr.Timeout, "--timeout 300ms passed (0 events)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			io, err := s.run(t, false, "", append([]string{"watch", s.id}, tc.argv...)...)
			checkErr(t, err, tc.code, tc.want)
			if io.Out.Len() != 0 {
				t.Errorf("stdout %q", io.Out)
			}
		})
	}
	t.Run("ctrl-c", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(500*time.Millisecond, cancel)
		r := s.watch(ctx, t, false, "", "interrupted")
		if r.err != nil {
			t.Errorf("Ctrl-C, a watch's normal end, gave %v", r.err)
		}
	})
	t.Run("recursive on an old envd", func(t *testing.T) {
		t.Parallel()
		old := newFakeSandboxVersion(t, "0.1.2")
		_, err := old.run(t, false, "", "watch", old.id, ".", "-r")
		checkErr(t, err, abxerr.Unsupported, "cannot watch subdirectories (it needs 0.1.4 or newer)")
	})
}

// newCutSandbox is newFakeSandbox behind a fault proxy: the API and the
// data plane go through it.
func newCutSandbox(t *testing.T) (*fakeSandbox, *faultproxy.Proxy) {
	t.Helper()
	srv := manager.New(manager.Options{APIKey: emutest.Key, Domain: "abx.test", EnvdVersion: "0.2.10", KeepRequests: true})
	gw := emulator.NewGateway(srv, t.TempDir(), "0.2.10")
	t.Cleanup(gw.Close)
	ts := httptest.NewServer(gw)
	t.Cleanup(ts.Close)
	p := faultproxy.New(ts.URL)
	t.Cleanup(p.Close)
	s := &fakeSandbox{srv: srv, env: map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": p.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  emutest.Key,
		"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
	}}
	f, _ := s.factory(t, false, "")
	prov, err := f.Provider()
	checkErr(t, err, "", "")
	sb, err := prov.Create(t.Context(), provider.CreateRequest{Template: "base"})
	checkErr(t, err, "", "")
	s.id, s.home = sb.SandboxID, gw.Envd(sb.SandboxID).Home()
	return s, p
}

func TestRunWatchSurvivesACut(t *testing.T) {
	t.Parallel()
	for _, format := range []output.Format{"", output.JSON} {
		t.Run(string(format), func(t *testing.T) {
			t.Parallel()
			s, p := newCutSandbox(t)
			// The first watch stream is cut a moment after it began, as a
			// proxy's route timeout cuts it; the next one passes.
			p.Add(faultproxy.Rule{Path: `/filesystem\.Filesystem/WatchDir$`, Times: 1, Fault: faultproxy.CutAfter(300 * time.Millisecond)})
			r := s.watch(t.Context(), t, false, format, "out", "--count", "20", "--timeout", "50s")
			checkErr(t, r.err, "", "")
			if n := p.Count("", `/filesystem\.Filesystem/WatchDir$`); n != 2 {
				t.Errorf("%d watch calls, want 2: %q", n, p.Seen())
			}
			lines := strings.Split(strings.TrimSuffix(r.io.Out.String(), "\n"), "\n")
			if format == "" {
				if !regexp.MustCompile(`(?m)^abx: the watch of \S+:out was cut after \d+\.\ds \(.+\); watching again \d+\.\ds later: changes in between may be missing$`).MatchString(r.io.ErrOut.String()) {
					t.Errorf("stderr %q", r.io.ErrOut)
				}
				if len(lines) != 20 {
					t.Errorf("%d events, want 20: %q", len(lines), r.io.Out)
				}
				return
			}
			events, reconnected, after := 0, 0, 0
			for _, l := range lines {
				var ev map[string]any
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				switch ev["type"] {
				case "reconnect":
					reconnected++
					if _, ok := ev["gap"].(float64); !ok || ev["reason"] == "" || ev["cutAfter"] == nil || ev["attempts"] != 1.0 || len(ev) != 5 {
						t.Errorf("reconnected %v", ev)
					}
				default:
					events++
					after += reconnected
				}
			}
			if events != 20 || reconnected != 1 || after == 0 || r.io.ErrOut.Len() != 0 {
				t.Errorf("%d events, %d after the one reconnect of %d; stderr %q; stdout %q; requests %q", events, after, reconnected, r.io.ErrOut, r.io.Out, p.Seen())
			}
		})
	}
}

func TestRunWatchEndsWhenTheSandboxIsKilled(t *testing.T) {
	t.Parallel()
	s, p := newCutSandbox(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watching := make(chan struct{})
	p.Add(faultproxy.Rule{Path: `/filesystem\.Filesystem/WatchDir$`, Times: 1, Fault: faultproxy.Up(watching)})
	go func() {
		// Once the watch is in place, however long that takes, kill the
		// sandbox.
		select {
		case <-watching:
		case <-ctx.Done():
			return
		}
		f, _ := s.factory(t, false, "")
		if p, err := f.Provider(); err == nil {
			_ = p.Kill(ctx, s.id)
		}
	}()
	r := s.watch(ctx, t, false, "", "out")
	e := abxerr.From(r.err)
	if e == nil || !strings.HasPrefix(e.Message, "the watch of out was cut after ") ||
		!strings.Contains(e.Message, "abx could not watch again: the sandbox's gateway answered 502 Bad Gateway: sandbox not found: "+s.id) || !strings.Contains(e.Hint, "abx info "+s.id) {
		t.Fatalf("err %v (hint %q)", r.err, e.Hint)
	}
}
