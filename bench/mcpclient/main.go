// Command mcpclient is bench/mcp.sh's MCP host: it spawns `abx mcp serve`
// as agent hosts do, over stdio with the official Go SDK, and measures it.
//
//  1. One command, REPS times, each way in turn (the order rotates and
//     alternates, so that no way always runs first or warm): an exec tool
//     call; a fresh `abx exec ID -- LINE` process; and, to tell where the
//     time goes, a tool that sends no request (sandbox_url: the protocol's
//     round trip alone), one that sends one GET (sandbox_info) and the
//     command alone, run by abx's own envd client in this process (what
//     every exec pays in the sandbox, whoever asks).
//  2. ROUNDS rounds of N exec calls at once, for each of two loads (output
//     under the cap, and past it), while the server's resident memory is
//     sampled from /proc/PID/status.
//
// It prints Markdown. It fails when a call fails or answers other than
// expected, never on a figure.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/remoteproc"
)

type config struct {
	abx, sandbox, line, want string
	envdURL, token, version  string
	reps, calls, rounds      int
	rtt                      time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.abx, "abx", "abx", "the abx binary")
	flag.StringVar(&c.sandbox, "sandbox", "", "the sandbox's ID")
	flag.StringVar(&c.line, "line", "echo hi", "the command timed")
	flag.StringVar(&c.want, "want", "hi\n", "its stdout")
	flag.StringVar(&c.envdURL, "envd", "", "the sandbox's envd URL")
	flag.StringVar(&c.token, "token", "", "the sandbox's envd access token")
	flag.StringVar(&c.version, "envd-version", "", "the sandbox's envd version")
	flag.IntVar(&c.reps, "reps", 20, "runs of each way")
	flag.IntVar(&c.calls, "calls", 10, "exec calls at once")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds of calls at once")
	flag.DurationVar(&c.rtt, "rtt", 0, "make the link to the emulator look this far away (a round trip; 0: loopback as it is)")
	flag.Parse()
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "bench/mcpclient:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	if c.rtt > 0 {
		if err := throughDelay(&c, c.rtt); err != nil {
			return err
		}
	}
	server := exec.Command(c.abx, "mcp", "serve")
	server.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "abx-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		return fmt.Errorf("starting abx mcp serve: %w", err)
	}
	defer cs.Close()
	pid := server.Process.Pid
	idle, _, err := memory(pid)
	if err != nil {
		return err
	}
	if err := paired(ctx, c, cs); err != nil {
		return err
	}
	return concurrent(ctx, c, cs, pid, idle)
}

// way is one way of running the command, timed.
type way struct {
	label string
	run   func(context.Context) error
	took  []time.Duration
}

func paired(ctx context.Context, c config, cs *mcp.ClientSession) error {
	hc := httpclient.New(nil)
	ec := envd.New(hc, envd.Endpoint{URL: c.envdURL, Header: http.Header{"X-Access-Token": {c.token}}, Version: c.version}, "")
	ways := []*way{
		{label: "`sandbox_url` tool: the protocol's round trip, no request", run: func(ctx context.Context) error {
			_, err := call(ctx, cs, "sandbox_url", map[string]any{"sandbox_id": c.sandbox, "port": 8080})
			return err
		}},
		{label: "`sandbox_info` tool: one GET /sandboxes/ID", run: func(ctx context.Context) error {
			_, err := call(ctx, cs, "sandbox_info", map[string]any{"sandbox_id": c.sandbox})
			return err
		}},
		{label: "the command alone: abx's envd client in the bench's own process, no MCP, no lookup", run: func(ctx context.Context) error {
			var out sink
			x, err := remoteproc.Run(ctx, ec, remoteproc.Spec{Argv: []string{c.line}, Signals: make(chan os.Signal)}, &out)
			if err != nil {
				return err
			}
			return check("the command", x.Code, out.stdout.String(), c.want)
		}},
		{label: "`exec` tool call", run: func(ctx context.Context) error {
			res, err := call(ctx, cs, "exec", map[string]any{"sandbox_id": c.sandbox, "command": c.line})
			if err != nil {
				return err
			}
			return check("the exec tool", res.ExitCode, res.Stdout, c.want)
		}},
		{label: "`abx exec ID -- LINE`, a fresh process", run: func(ctx context.Context) error {
			var out, errb bytes.Buffer
			cmd := exec.CommandContext(ctx, c.abx, "exec", c.sandbox, "--", c.line)
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("abx exec: %w: %s", err, strings.TrimSpace(errb.String()))
			}
			return check("abx exec", 0, out.String(), c.want)
		}},
	}
	// One untimed run each first: the server opens the provider at its
	// first call, and the connections are made.
	for _, w := range ways {
		if err := w.run(ctx); err != nil {
			return err
		}
	}
	for i := range c.reps {
		// Each run starts one way further on, and every other run goes
		// backwards: each way follows each other about as often as not.
		order := append(slices.Clone(ways[i%len(ways):]), ways[:i%len(ways)]...)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, w := range order {
			t0 := time.Now()
			if err := w.run(ctx); err != nil {
				return err
			}
			w.took = append(w.took, time.Since(t0))
		}
	}
	link := "on loopback"
	if c.rtt > 0 {
		link = fmt.Sprintf("through a proxy that makes the emulator %s away (a round trip; a new connection waits one more)", c.rtt)
	}
	fmt.Printf("One command, `%s`, %d runs each way, in turn (the order rotates and alternates), after one untimed run each, %s:\n\n", c.line, c.reps, link)
	fmt.Println("| through | median (min–max) |")
	fmt.Println("| --- | --- |")
	for _, w := range ways {
		fmt.Printf("| %s | %s |\n", w.label, spread(w.took))
	}
	alone, tool, proc := median(ways[2].took), median(ways[3].took), median(ways[4].took)
	ratio := float64(tool) / float64(proc)
	// No tool call costs less than its command: the command alone against
	// the process is the best ratio any server could reach here.
	bound := float64(alone) / float64(proc)
	holds := verdict(ratio <= 0.5)
	if ratio > 0.5 && bound > 0.5 {
		holds += fmt.Sprintf(" (out of reach here: the command alone is %.2f× the process; the call is %s more than it)", bound, ms(tool-alone))
	}
	fmt.Printf("\n| target | figure | holds |\n| --- | --- | --- |\n")
	fmt.Printf("| an exec tool call ≤ 0.5× a fresh `abx exec` (ratio of medians) | %.2f× (%s against %s) | %s |\n",
		ratio, ms(tool), ms(proc), holds)
	return nil
}

// loads are the commands of the calls at once: output under the cap, and
// output past it, the most a call can hold.
var loads = []struct{ label, line string }{
	{"130 KB each, under the cap", "sleep 1; head -c 100000 /dev/urandom | base64"},
	{"1.3 MB each, past the 256 KiB cap", "sleep 1; head -c 1000000 /dev/urandom | base64"},
}

func concurrent(ctx context.Context, c config, cs *mcp.ClientSession, pid int, idle int) error {
	fmt.Printf("\n%d exec calls at once, %d rounds of each load (`sleep 1; head -c BYTES /dev/urandom | base64`); "+
		"the server's memory from /proc/PID/status, VmRSS sampled every 5 ms, VmHWM after the rounds "+
		"(its peak since it started); it held %s before the first call:\n\n", c.calls, c.rounds, mib(idle))
	fmt.Println("| output | a round, all answered: median (min–max) | cut at the cap | VmRSS, largest sample | VmHWM | ≤ 50 MiB |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, l := range loads {
		var took []time.Duration
		var cut atomic.Int32
		rss, err := sampled(pid, func() error {
			for range c.rounds {
				t0 := time.Now()
				errs := make(chan error, c.calls)
				for range c.calls {
					go func() {
						res, err := call(ctx, cs, "exec", map[string]any{"sandbox_id": c.sandbox, "command": l.line})
						if err == nil && res.ExitCode != 0 {
							err = fmt.Errorf("the exec tool: exit code %d: %s", res.ExitCode, res.Stderr)
						}
						if err == nil && res.Truncated {
							cut.Add(1)
						}
						errs <- err
					}()
				}
				var first error
				for range c.calls {
					if err := <-errs; err != nil && first == nil {
						first = err
					}
				}
				if first != nil {
					return first
				}
				took = append(took, time.Since(t0))
			}
			return nil
		})
		if err != nil {
			return err
		}
		_, hwm, err := memory(pid)
		if err != nil {
			return err
		}
		// The kernel folds per-thread counters into VmHWM in batches, so a
		// sample of VmRSS may pass it by a little: the peak is the larger.
		top := max(hwm, rss)
		fmt.Printf("| %s | %s | %d of %d | %s | %s | %s |\n", l.label, spread(took), cut.Load(), c.calls*c.rounds,
			mib(rss), mib(hwm), verdict(top <= 50<<10))
	}
	return nil
}

// sampled runs f while sampling the process's VmRSS, and answers the
// largest sample, in KiB.
func sampled(pid int, f func() error) (int, error) {
	var peak atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if rss, _, err := memory(pid); err == nil && int64(rss) > peak.Load() {
				peak.Store(int64(rss))
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := f()
	close(stop)
	<-done
	return int(peak.Load()), err
}

// execResult is the exec tool's structured result, as much as is read.
type execResult struct {
	ExitCode  int    `json:"exitCode"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
}

// call calls a tool; a tool error is an error.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*execResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		return nil, fmt.Errorf("%s: %s", name, b.String())
	}
	var out execResult
	if name == "exec" {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, fmt.Errorf("exec: structured content %s: %w", b, err)
		}
	}
	return &out, nil
}

func check(who string, code int, stdout, want string) error {
	if code != 0 || stdout != want {
		return fmt.Errorf("%s: exit code %d, stdout %q, want 0 and %q", who, code, stdout, want)
	}
	return nil
}

// sink keeps a process's stdout (remoteproc.Sink).
type sink struct{ stdout bytes.Buffer }

func (*sink) Started(uint32) error       { return nil }
func (s *sink) Stdout(data []byte) error { s.stdout.Write(data); return nil }
func (*sink) Stderr(data []byte) error   { _, err := os.Stderr.Write(data); return err }
func (*sink) Reconnected(remoteproc.Reconnect) error {
	return errors.New("the command's stream was cut")
}

// memory reads a process's resident set now and at its peak, in KiB.
func memory(pid int) (rss, hwm int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, err = strconv.Atoi(f[1])
		case "VmHWM:":
			hwm, err = strconv.Atoi(f[1])
		}
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %w", pid, err)
		}
	}
	return rss, hwm, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func spread(d []time.Duration) string {
	f := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("%s ms (%s–%s)", f(median(d)), f(slices.Min(d)), f(slices.Max(d)))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mib(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

func verdict(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}
