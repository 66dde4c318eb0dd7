//go:build unix

package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/abx-dev/abx/internal/cmd/root"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/emulator/reqlog"
	"github.com/abx-dev/abx/internal/fakenet"
	"github.com/abx-dev/abx/internal/testrun"
)

// The scripts in testdata/script are user stories: real command lines run
// against the real binary and a fake sandbox-manager started per script.
func TestMain(m *testing.M) {
	commands := map[string]func(){
		"abx": func() { os.Exit(root.Main()) },
		"jq":  func() { os.Exit(jqMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	}
	if _, isCommand := commands[filepath.Base(os.Args[0])]; !isCommand {
		// The stories wait on servers, child processes and the sandboxes'
		// clocks far more than they compute: run them side by side; the
		// abx they start (this binary, built with -race too) exits at once.
		testrun.Parallel()
		testrun.QuickExits()
	}
	testscript.Main(m, commands)
}

// hasMatplotlib tells whether the sandboxes' python3 (their standard PATH)
// has matplotlib. It is asked once: a story asks at every line it guards,
// and each asking imports matplotlib, a second of a processor.
var hasMatplotlib = sync.OnceValue(func() bool {
	cmd := exec.Command("/bin/sh", "-c", "exec python3 -c 'import matplotlib'")
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	return cmd.Run() == nil
})

// testKey is the fake's API key; decoyKey must never be sent anywhere.
const (
	testKey  = "sk-test-5f1c2d"
	decoyKey = "decoy-never-send-me"
)

type fakeEnv struct {
	srv   *manager.Server
	gw    *emulator.Gateway
	proxy *fakenet.Proxy
	clock *clock
}

type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

// repoRoot is the checkout, for scripts that run the examples.
var repoRoot, _ = filepath.Abs("../..")

func TestScripts(t *testing.T) {
	// Side by side with the package's other tests, which wait too.
	t.Parallel()
	testscript.Run(t, storyParams("testdata/script"))
}

// The egress stories run in a network of their own, where a test host
// has an address beyond the loopback for sandboxes to reach, or not
// (jailtest.InTestNetwork).
func TestEgressStories(t *testing.T) {
	t.Parallel()
	if !jailtest.InTestNetwork(t) {
		return
	}
	testscript.Run(t, storyParams("testdata/egress"))
}

// storyParams runs the stories in dir, each with an emulator of its own.
func storyParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "isolated":
				return jail.Available() == nil, nil
			case "layers":
				// A root emulator's boxes lay layers of their own over
				// this machine's directories; a user's bind them
				// read-only.
				return jail.Available() == nil && os.Geteuid() == 0, nil
			case "matplotlib":
				return hasMatplotlib(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			c := &clock{}
			srv := manager.New(manager.Options{APIKey: testKey, Domain: "abx.test", Now: c.now, KeepRequests: true})
			gw := emulator.NewGateway(srv, filepath.Join(env.WorkDir, ".sandboxes"), "0.2.10")
			gw.Isolated = jail.Available() == nil
			plain := httptest.NewServer(gw)
			secure, err := fakenet.NewTLS(gw, "abx.test", "*.abx.test")
			if err != nil {
				return err
			}
			proxy := fakenet.NewProxy(secure.Listener.Addr().String())
			env.Defer(plain.Close)
			env.Defer(secure.Close)
			env.Defer(proxy.Close)
			// Deferred last, so run first: code left running in a sandbox
			// holds its request open until the gateway stops it.
			env.Defer(gw.Close)
			ca := filepath.Join(env.WorkDir, "ca.pem")
			if err := os.WriteFile(ca, secure.CAPEM, 0o600); err != nil {
				return err
			}
			env.Values["fake"] = &fakeEnv{srv: srv, gw: gw, proxy: proxy, clock: c}
			env.Setenv("FAKE_URL", plain.URL)
			env.Setenv("FAKE_PROXY", proxy.URL)
			env.Setenv("FAKE_CA", ca)
			env.Setenv("FAKE_KEY", testKey)
			env.Setenv("ABX_SANDBOX_API_KEY", decoyKey)
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("REPO", repoRoot)
			// CI asks for the keyring's story instead of a skip.
			env.Setenv("ABX_REQUIRE_KEYRING", os.Getenv("ABX_REQUIRE_KEYRING"))
			return nil
		},
		Cmds: storyCmds,
	}
}

// storyCmds are the stories' own commands; a platform's files add theirs.
var storyCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"requests":  cmdRequests,
	"clock":     cmdClock,
	"capture":   cmdCapture,
	"waitfile":  cmdWaitFile,
	"envdlog":   cmdEnvdLog,
	"interplog": cmdInterpLog,
	"waitenvd":  cmdWaitEnvd,
}

// requests prints the fake's request log, one block a request:
//
//	METHOD host path?query
//	  Header: value
//	  body: ...
//
// "requests count N" asserts how many there were; "requests clear" forgets them.
func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	f := ts.Value("fake").(*fakeEnv)
	reqs := f.srv.Requests()
	switch {
	case len(args) == 2 && args[0] == "count":
		want := args[1]
		got := fmt.Sprint(len(reqs))
		if (got == want) == neg {
			ts.Fatalf("requests: got %s, want %s%s", got, map[bool]string{true: "not ", false: ""}[neg], want)
		}
		return
	case len(args) == 1 && args[0] == "clear":
		f.srv.ResetLog()
		return
	case len(args) == 1 && args[0] == "proxy":
		for _, h := range f.proxy.Hosts() {
			_, _ = fmt.Fprintln(ts.Stdout(), "CONNECT", h)
		}
		return
	}
	for _, r := range reqs {
		line := r.Method + " " + r.Host + " " + r.Path
		if r.Query != "" {
			line += "?" + r.Query
		}
		_, _ = fmt.Fprintln(ts.Stdout(), line)
		names := make([]string, 0, len(r.Header))
		for k := range r.Header {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			_, _ = fmt.Fprintf(ts.Stdout(), "  %s: %s\n", k, strings.Join(r.Header[k], ", "))
		}
		if r.Body != "" {
			_, _ = fmt.Fprintf(ts.Stdout(), "  body: %s\n", r.Body)
		}
	}
}

// clock advance D moves the fake's clock, so timeouts expire without waiting.
func cmdClock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "advance" {
		ts.Fatalf("usage: clock advance DURATION")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	f := ts.Value("fake").(*fakeEnv)
	f.clock.mu.Lock()
	f.clock.off += d
	f.clock.mu.Unlock()
}

// capture NAME sets $NAME to the last command's stdout, trimmed: the
// script's id=$(abx create -q ...).
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture NAME")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// waitfile PATH waits (up to a minute) until PATH exists: a sandbox
// command's way of saying it got somewhere.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear", args[0])
}

// envdlog ID prints the requests the sandbox's envd received, like requests.
func cmdEnvdLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: envdlog SANDBOX-ID")
	}
	e := ts.Value("fake").(*fakeEnv).gw.Envd(args[0])
	if e == nil {
		ts.Fatalf("no sandbox %s", args[0])
	}
	printLog(ts, e.Requests())
}

// interplog ID prints the requests the sandbox's code interpreter received.
func cmdInterpLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: interplog SANDBOX-ID")
	}
	j := ts.Value("fake").(*fakeEnv).gw.Jupyter(args[0])
	if j == nil {
		ts.Fatalf("no code interpreter in sandbox %s", args[0])
	}
	printLog(ts, j.Requests())
}

// printLog writes each request as "METHOD path" and its headers, sorted,
// one a line.
func printLog(ts *testscript.TestScript, reqs []reqlog.Request) {
	for _, r := range reqs {
		_, _ = fmt.Fprintf(ts.Stdout(), "%s %s\n", r.Method, r.Path)
		names := make([]string, 0, len(r.Header))
		for k := range r.Header {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			_, _ = fmt.Fprintf(ts.Stdout(), "  %s: %s\n", k, strings.Join(r.Header[k], ", "))
		}
	}
}

// waitenvd ID PATH N waits (up to a minute) until the sandbox's envd has
// received N requests for PATH: a way to know a stream is attached.
func cmdWaitEnvd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: waitenvd SANDBOX-ID PATH N")
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if e := ts.Value("fake").(*fakeEnv).gw.Envd(args[0]); e != nil {
			n := 0
			for _, r := range e.Requests() {
				if r.Path == args[1] {
					n++
				}
			}
			if n >= want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("envd of %s did not get %d requests for %s", args[0], want, args[1])
}
