//go:build unix

package root

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/output"
)

// The fault tests put a misbehaving network and a hostile server
// (faultproxy) between abx and the emulator, one family of faults a file,
// and check what a user sees: one clear line, the documented exit status,
// no hang (the error names the bound that ended the command), nothing
// written where it should not be, no credential at another origin and no
// secret printed (docs/reliability.md).

// faulty is the emulator behind a fault proxy, with a sandbox made
// through it.
type faulty struct {
	srv   *manager.Server
	proxy *faultproxy.Proxy
	env   env
	id    string
}

// newFaulty starts the cluster and the proxy, and points abx at the proxy
// with the private protocol, so the API and every sandbox's data plane
// pass through it. The retries' first wait is short in tests only in that
// every case that retries is bounded by --request-timeout.
func newFaulty(t *testing.T, template string) *faulty {
	t.Helper()
	srv, e := fakeManager(t)
	p := faultproxy.New(e["ABX_ALICLOUD_CONTAINER_BASE_URL"])
	t.Cleanup(p.Close)
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = p.URL + "/kruise/api"
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	f := &faulty{srv: srv, proxy: p, env: e}
	if template != "" {
		r := run(t, e, false, "create", "--template", template, "-q")
		if r.code != 0 {
			t.Fatalf("create: %d %s", r.code, r.stderr)
		}
		f.id = strings.TrimSpace(r.stdout)
	}
	p.Reset()
	return f
}

// guard is the fault cases' default hang guard.
const guard = 2 * time.Minute

// faultCase is one command line run against one fault.
type faultCase struct {
	name  string
	rules []faultproxy.Rule
	args  []string // ID stands for the sandbox's ID
	env   env      // added to the environment
	// want is the exit status; wantErr a regular expression the one error
	// line must match.
	want    int
	wantErr string
	// bound is a hang guard: how long the command may take at most on a
	// loaded machine under -race (default guard). A case's own bound, the
	// one users are promised, is told by its error line, never by the
	// clock.
	bound time.Duration
	// stdin replaces the command's empty stdin.
	stdin io.Reader
	// before are command lines run first, with no fault, to put the
	// sandbox in the state the case needs (ID stands for its ID).
	before [][]string
	// interrupt, a path pattern, presses Ctrl-C (cancels the command's
	// context) a moment after a request for it reached the proxy; "*" a
	// moment after the start, requests or not.
	interrupt string
	check     func(t *testing.T, f *faulty, r result)
}

// runFault runs c against a fresh proxy state of f and checks the common
// promises: the exit status, one error line matching wantErr, the bound.
func runFault(t *testing.T, f *faulty, c faultCase) result {
	t.Helper()
	withID := func(line []string) []string {
		out := make([]string, len(line))
		for i, a := range line {
			out[i] = strings.ReplaceAll(a, "ID", f.id)
		}
		return out
	}
	for _, line := range c.before {
		if r := run(t, f.env, false, withID(line)...); r.code != 0 {
			t.Fatalf("%v: %d %s", line, r.code, r.stderr)
		}
	}
	f.proxy.Reset()
	for _, rule := range c.rules {
		f.proxy.Add(rule)
	}
	e := env{}
	for k, v := range f.env {
		e[k] = v
	}
	for k, v := range c.env {
		e[k] = v
	}
	args := withID(c.args)
	bound := c.bound
	if bound == 0 {
		bound = guard
	}
	io, _, out, errOut := output.Test(false)
	if c.stdin != nil {
		io.In = c.stdin
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound+30*time.Second)
	defer cancel()
	if c.interrupt != "" {
		go func() {
			for c.interrupt != "*" && ctx.Err() == nil && f.proxy.Count("", c.interrupt) == 0 {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			cancel()
		}()
	}
	start := time.Now()
	code := Run(ctx, io, func(k string) string { return e[k] }, args)
	took := time.Since(start)
	r := result{code: code, stdout: out.String(), stderr: errOut.String(),
		stdoutLines: strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")}
	if took > bound {
		t.Errorf("%v took %s, more than its hang guard %s", c.args, took.Round(time.Millisecond), bound)
	}
	if r.code != c.want {
		t.Errorf("%v: exit %d, want %d; stderr %q", c.args, r.code, c.want, r.stderr)
	}
	if c.wantErr != "" {
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		last := lines[len(lines)-1]
		if !regexp.MustCompile(c.wantErr).MatchString(last) {
			t.Errorf("%v: error line %q does not match %q", c.args, last, c.wantErr)
		}
	}
	if c.check != nil {
		c.check(t, f, r)
	}
	return r
}

// runFaults runs each case as a subtest on one shared cluster.
func runFaults(t *testing.T, f *faulty, cases []faultCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runFault(t, f, c) })
	}
}

// runFaultsApart runs each case as a parallel subtest on a cluster and a
// proxy of its own (a sandbox from template, as newFaulty makes): for cases
// that mostly wait, such as retries' backoff, so that the waits overlap.
func runFaultsApart(t *testing.T, template string, cases []faultCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runFault(t, newFaulty(t, template), c)
		})
	}
}
