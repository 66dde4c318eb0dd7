//go:build unix

package root

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/output"
)

const testKey = emutest.Key

// env is the environment a test gives abx: these variables and no other.
type env map[string]string

// fakeManager starts the fake sandbox-manager and returns an environment
// that points abx at it.
func fakeManager(t *testing.T) (*manager.Server, env) {
	t.Helper()
	srv, e := emutest.Cluster(t)
	return srv, e
}

type result struct {
	code        int
	stdout      string
	stderr      string
	stdoutLines []string
}

func testStreams() (*output.Streams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	return output.Test(false)
}

func runWith(io *output.Streams, e env, args ...string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	return Run(ctx, io, func(k string) string { return e[k] }, args)
}

// create makes a sandbox with `abx create` and the flags args, and
// returns its ID.
func create(t *testing.T, e env, args ...string) string {
	t.Helper()
	r := run(t, e, false, append([]string{"create", "--template", "base", "-q"}, args...)...)
	if r.code != 0 {
		t.Fatalf("create: %d %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// run executes one command line as a pipe (or a terminal when tty is set).
func run(t *testing.T, e env, tty bool, args ...string) result {
	t.Helper()
	io, _, out, errOut := output.Test(tty)
	code := runWith(io, e, args...)
	return result{code: code, stdout: out.String(), stderr: errOut.String(),
		stdoutLines: strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")}
}

func TestBadInputIsRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		want string // in the one-line error
	}{
		{"duration word", []string{"create", "--template", "base", "--timeout", "soon"}, `invalid --timeout "soon": not a duration`},
		{"duration below floor", []string{"create", "--template", "base", "--timeout", "10s"}, "must be between 30s and 30 days"},
		{"duration above 30 days", []string{"create", "--template", "base", "--timeout", "31d"}, "must be between"},
		{"duration hours above 30 days", []string{"create", "--template", "base", "--timeout", "721h"}, "must be between"},
		{"fractional seconds", []string{"create", "--template", "base", "--timeout", "90.5s"}, "whole seconds"},
		{"negative seconds", []string{"create", "--template", "base", "--timeout", "-5"}, `invalid --timeout "-5": must be between 30s and 30 days`},
		{"zero duration", []string{"create", "--template", "base", "--timeout", "0"}, `invalid --timeout "0": must be between 30s and 30 days`},
		{"negative duration", []string{"timeout", "sb-1", "--", "-5m"}, `invalid DURATION "-5m": must be between 1s and 30 days`},
		// A negative value is read as a value, not as flags, without --.
		{"negative duration argument", []string{"timeout", "sb-1", "-1s"}, `invalid DURATION "-1s": must be between 1s and 30 days`},
		{"negative duration argument, flags after", []string{"timeout", "sb-1", "-5", "--request-timeout", "5s"}, `invalid DURATION "-5": must be between 1s and 30 days`},
		{"negative port argument", []string{"url", "sb-1", "-80"}, `invalid port "-80"`},
		{"decimal seconds of a lifetime", []string{"create", "--template", "base", "--timeout", "90.5"}, `invalid --timeout "90.5": the server counts whole seconds`},
		// Every duration says its range the same way, 0 and negatives
		// included; a fraction of a second is plain seconds too.
		{"watch timeout zero", []string{"files", "watch", "sb-1", "out", "--timeout", "0"}, `invalid --timeout "0": must be between 100ms and 30 days; 0 is no time: leave --timeout out for no limit`},
		{"watch timeout negative", []string{"files", "watch", "sb-1", "out", "--timeout", "-1s"}, `invalid --timeout "-1s": must be between 100ms and 30 days`},
		{"watch timeout word", []string{"files", "watch", "sb-1", "out", "--timeout", "soon"}, `invalid --timeout "soon": not a duration`},
		{"metrics interval short", []string{"metrics", "sb-1", "--watch", "--interval", "100ms"}, `invalid --interval "100ms": must be between 1s and 24h`},
		{"metrics interval negative", []string{"metrics", "sb-1", "--watch", "--interval", "-2s"}, `invalid --interval "-2s": must be between 1s and 24h`},
		{"exec timeout zero", []string{"exec", "sb-1", "--timeout", "0", "--", "true"}, `invalid --timeout "0": must be between 1s and 24h; 0 is no time: leave --timeout out for no limit`},
		// A command's time limit is a process's bound, not a sandbox's
		// lifetime: a day at most.
		{"exec timeout of two days", []string{"exec", "sb-1", "--timeout", "2d", "--", "true"}, `invalid --timeout "2d": must be between 1s and 24h`},
		{"run-code timeout of two days", []string{"run-code", "sb-1", "--timeout", "48h", "1"}, `invalid --timeout "48h": must be between 1s and 24h`},
		// The process operations' refusals, in the words the command line
		// takes them in.
		{"exec empty command", []string{"exec", "sb-1", "--", " "}, "the command is empty; give a command that runs something"},
		{"exec user with a colon", []string{"exec", "sb-1", "-u", "a:b", "--", "true"}, `invalid --user "a:b"`},
		{"exec cwd with NUL", []string{"exec", "sb-1", "--cwd", "a\x00b", "--", "true"}, `invalid --cwd`},
		{"exec env with NUL", []string{"exec", "sb-1", "-e", "A=\x00", "--", "true"}, `invalid --env A: its value holds NUL`},
		{"ps kill a signal envd cannot send", []string{"ps", "kill", "sb-1", "42", "-s", "HUP"}, `invalid --signal "HUP"; envd delivers TERM (15) and KILL (9) only`},
		{"ps kill pid 0", []string{"ps", "kill", "sb-1", "0"}, `invalid PID "0": must be between 1 and 4294967295`},
		{"ps stdin pid 0", []string{"ps", "stdin", "sb-1", "0", "x"}, `invalid PID "0"`},
		{"ps attach pid 0", []string{"ps", "attach", "sb-1", "0"}, `invalid PID "0"`},
		{"run lease below the floor", []string{"run", "--template", "base", "--lease", "10s", "--", "true"}, `invalid --lease "10s": must be between 30s and 30 days`},
		{"run lease zero", []string{"run", "--template", "base", "--lease", "0", "--", "true"}, `invalid --lease "0": must be between 30s and 30 days; 0 is no time: leave --lease out for the default lease`},
		{"run timeout of two days", []string{"run", "--template", "base", "--timeout", "2d", "--", "true"}, `invalid --timeout "2d": must be between 1s and 24h`},
		{"run keep-for zero", []string{"run", "--template", "base", "--keep", "--keep-for", "0", "--", "true"}, `invalid --keep-for "0": must be between 1s and 30 days`},
		{"run empty command", []string{"run", "--template", "base", "--", ""}, "the command is empty"},
		{"run user with a newline", []string{"run", "--template", "base", "-u", "a\nb", "--", "true"}, "invalid --user"},
		{"missing template", []string{"create"}, "error[E1002]: the template is required; name the template to start from, e.g. base or code-interpreter\n"},
		{"blank template to run", []string{"run", "--template", " ", "--", "true"}, "error[E1002]: the template is required; name the template to start from, e.g. base or code-interpreter\n"},
		{"metadata without =", []string{"create", "--template", "base", "--metadata", "owner"}, `invalid --metadata "owner": want KEY=VALUE`},
		{"metadata empty key", []string{"list", "--metadata", "=x"}, "want KEY=VALUE"},
		{"env without =", []string{"create", "--template", "base", "--env", "PATH"}, `invalid --env "PATH"`},
		{"unknown state", []string{"list", "--state", "sleeping"}, `invalid --state "sleeping"`},
		{"zero limit", []string{"list", "--limit", "0"}, "invalid --limit 0"},
		{"limit not a number", []string{"list", "--limit", "many"}, `invalid --limit "many": not a whole number; give --limit a whole number (see 'abx list --help')`},
		{"count not a number", []string{"metrics", "sb-1", "--watch", "-n", "abc"}, `invalid --count "abc": not a whole number`},
		{"bool flag not a bool", []string{"kill", "sb-1", "--yes=maybe"}, `invalid --yes "maybe": not true or false`},
		{"float flag not a number", []string{"emulator", "start", "--time-scale", "fast"}, `invalid --time-scale "fast": not a number`},
		{"port zero", []string{"url", "sb-1", "0"}, `invalid port "0"`},
		{"port too big", []string{"url", "sb-1", "65536"}, `invalid port "65536"`},
		{"port word", []string{"url", "sb-1", "http"}, `invalid port "http"`},
		{"empty ID", []string{"info", ""}, `invalid sandbox ID ""`},
		{"blank ID", []string{"pause", "  "}, "invalid sandbox ID"},
		{"ID with slash", []string{"kill", "a/b"}, "invalid sandbox ID"},
		{"info without ID", []string{"info"}, "abx info needs ID"},
		{"timeout without duration", []string{"timeout", "sb-1"}, "abx timeout needs ID DURATION"},
		{"timeout bad duration", []string{"timeout", "sb-1", "forever"}, `invalid DURATION "forever"`},
		{"kill nothing", []string{"kill"}, "kill needs sandbox IDs or --all"},
		{"kill IDs and all", []string{"kill", "--all", "sb-1"}, "not both"},
		{"kill all piped without yes", []string{"kill", "--all"}, "kill --all needs --yes"},
		{"kill filter without all", []string{"kill", "sb-1", "--state", "paused"}, "--state and --metadata filter --all"},
		{"unknown output", []string{"list", "-o", "yaml"}, `unknown output format "yaml"`},
		{"unknown flag", []string{"list", "--colour"}, "unknown flag: --colour"},
		{"unknown command", []string{"lsit"}, `unknown command "lsit"`},
		{"unknown protocol", []string{"list", "--protocol", "grpc"}, `unknown protocol "grpc"`},
		{"relative base URL", []string{"list", "--base-url", "/kruise/api"}, "is not an absolute http(s) URL"},
		{"base URL without scheme", []string{"list", "--base-url", "agents.example.com"}, "is not an absolute http(s) URL"},
		{"ftp base URL", []string{"list", "--base-url", "ftp://agents.example.com"}, "is not an absolute http(s) URL"},
		{"domain with scheme", []string{"list", "--domain", "https://agents.example.com"}, "is not a host name"},
		{"bad request timeout", []string{"list", "--request-timeout", "later"}, `invalid --request-timeout "later"`},
		{"bad envd port", []string{"list", "--envd-port", "x"}, `invalid --envd-port "x"; give --envd-port a whole number`},
		{"envd port range", []string{"list", "--envd-port", "70000"}, "out of range"},
		{"unknown provider", []string{"list", "--provider", "aws"}, `unknown provider "aws"`},
		{"resume bad timeout", []string{"resume", "sb-1", "--timeout", "0"}, `invalid --timeout "0": must be between 1s and 30 days`},
		{"connect bad timeout", []string{"connect", "sb-1", "--timeout", "1ms"}, "whole seconds"},
		{"api key twice", []string{"list", "--api-key", "a", "--api-key-file", "/dev/null"}, "both --api-key and --api-key-file are given"},
		{"run-code without code", []string{"run-code", "sb-1"}, "abx run-code needs code"},
		{"run-code code twice", []string{"run-code", "sb-1", "1+1", "-f", "x.py"}, "give the code once"},
		{"run-code empty code", []string{"run-code", "sb-1", "  "}, "the code is required"},
		{"run-code missing file", []string{"run-code", "sb-1", "-f", "/nonexistent/x.py"}, "cannot read the code"},
		{"run-code unknown language", []string{"run-code", "sb-1", "--language", "cobol", "1"}, `invalid --language "cobol"; use python, javascript (js), typescript (ts), r, java or bash`},
		{"run-code language and context", []string{"run-code", "sb-1", "-l", "python", "-c", "ctx", "1"}, "give --language or --context, not both"},
		{"run-code bad context", []string{"run-code", "sb-1", "-c", "a/b", "1"}, `invalid --context "a/b"; pass a context ID as shown by 'abx run-code contexts list sb-1'`},
		{"run-code env without =", []string{"run-code", "sb-1", "-e", "X", "1"}, `invalid --env "X"`},
		{"run-code env with a quote", []string{"run-code", "sb-1", "-e", "NAME=it's", "1"}, "quotes, backslashes and line breaks cannot be passed"},
		{"run-code bad timeout", []string{"run-code", "sb-1", "--timeout", "soon", "1"}, `invalid --timeout "soon"`},
		{"run-code save-dir is a file", []string{"run-code", "sb-1", "--save-dir", "/dev/null", "1"}, "it is a file"},
		{"run-code three args", []string{"run-code", "sb-1", "1", "2"}, "takes ID [CODE], got 3 arguments"},
		{"contexts create bad language", []string{"run-code", "contexts", "create", "sb-1", "-l", "x"}, `invalid --language "x"`},
		{"contexts delete bad context", []string{"run-code", "contexts", "delete", "sb-1", "a/b"}, `invalid context ID "a/b"; pass a context ID as shown by 'abx run-code contexts list sb-1'`},
		{"port-forward port too big", []string{"port-forward", "sb-1", "8080", "70000"}, `invalid port "70000": must be between 1 and 65535`},
		{"metrics bad ID among several", []string{"metrics", "sb-1", "a/b"}, `invalid sandbox ID "a/b"`},
		{"contexts delete without context", []string{"run-code", "contexts", "delete", "sb-1"}, "needs ID CONTEXT"},
		{"unreadable key file", []string{"list", "--api-key-file", "/nonexistent/key"}, "cannot read --api-key-file: open /nonexistent/key: no such file or directory; give --api-key-file a readable file, or '-' for stdin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, e := fakeManager(t)
			if strings.Contains(tc.name, "key") {
				e["ABX_ALICLOUD_CONTAINER_API_KEY"] = ""
			}
			r := run(t, e, false, tc.args...)
			if want := usageExit(tc.args); r.code != want {
				t.Errorf("exit %d, want %d; stderr %q", r.code, want, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "error[E1") {
				t.Errorf("want one error line on stderr, got %q", r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the server got %d requests, want 0", n)
			}
		})
	}
}

// serviceCommands are every command that talks to the service.
var serviceCommands = [][]string{
	{"create", "--template", "base"},
	{"connect", "sb-1"},
	{"list"},
	{"info", "sb-1"},
	{"kill", "sb-1"},
	{"kill", "--all", "--yes"},
	{"timeout", "sb-1", "5m"},
	{"pause", "sb-1"},
	{"resume", "sb-1"},
	{"url", "sb-1", "8080"},
	{"run-code", "sb-1", "1+1"},
	{"run-code", "contexts", "list", "sb-1"},
}

func TestMissingConfigSendsNothing(t *testing.T) {
	t.Parallel()
	for _, missing := range []struct{ env, value string }{
		{"ABX_ALICLOUD_CONTAINER_BASE_URL", "ABX_ALICLOUD_CONTAINER_DOMAIN"},
		{"ABX_ALICLOUD_CONTAINER_API_KEY", "ABX_ALICLOUD_CONTAINER_API_KEY"},
	} {
		for _, args := range serviceCommands {
			t.Run(missing.env+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				srv, e := fakeManager(t)
				e[missing.env] = ""
				// The decoy is another tool's variable: never a fallback.
				e["ABX_SANDBOX_API_KEY"] = "decoy"
				r := run(t, e, false, args...)
				if want := usageExit(args); r.code != want {
					t.Errorf("exit %d, want %d (stderr %q)", r.code, want, r.stderr)
				}
				if !strings.Contains(r.stderr, missing.value) || !strings.HasPrefix(r.stderr, "error[E1003]") {
					t.Errorf("stderr %q does not name %s", r.stderr, missing.value)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("the server got %d requests, want 0", n)
				}
			})
		}
	}
}

func TestUnsupportedCapabilitiesFailWithE8004(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"template", "list"},
		{"template", "build", "--name", "x"},
		{"files", "upload-url", "sb-1", "/tmp/a"},
		{"files", "download-url", "sb-1", "/tmp/a"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			srv, e := fakeManager(t)
			// Even without any config: the check comes first.
			e["ABX_ALICLOUD_CONTAINER_API_KEY"] = ""
			r := run(t, e, false, args...)
			if r.code != 5 || !strings.HasPrefix(r.stderr, "error[E8004]: provider alicloud-container does not support ") {
				t.Errorf("exit %d stderr %q, want 5 and E8004", r.code, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the server got %d requests, want 0", n)
			}
			j := run(t, e, false, append(args, "-o", "json")...)
			if !strings.HasPrefix(j.stderr, `{"error":{"code":"E8004"`) {
				t.Errorf("JSON error %q", j.stderr)
			}
		})
	}
}

// usageExit is the status of a refused command line: 2, or 125 for the
// commands that pass a remote status through (docs/exit-codes.md); either
// way the error's code says E1xxx and nothing was sent.
func usageExit(args []string) int {
	if args[0] == "run-code" && (len(args) < 2 || args[1] != "contexts") || args[0] == "exec" || args[0] == "run" ||
		args[0] == "ps" && len(args) > 1 && args[1] == "attach" {
		return 125
	}
	return 2
}
