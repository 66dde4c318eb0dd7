//go:build unix

package root

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/cmd/factory"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// completion is what `abx __complete ARGS...` told the shell: the
// candidates and the directive on the last line.
type completion struct {
	candidates []string
	directive  string
}

// complete presses Tab after args (the last one is the word being typed),
// the way every shell's script asks abx. The shell discards stderr, where
// cobra only notes the directive: anything else there is abx talking when
// it should not.
func complete(t *testing.T, e env, args ...string) completion {
	t.Helper()
	// Lookups get a hang guard's time, not a Tab's 2 s: a loaded machine
	// under -race may take more, and a test must not fail for it.
	return completeWithin(t, e, 2*time.Minute, args...)
}

// completeWithin is complete with the completion's lookups bound by d.
func completeWithin(t *testing.T, e env, d time.Duration, args ...string) completion {
	t.Helper()
	io, _, out, errOut := output.Test(false)
	ctx := cmdutil.WithCompletionBound(context.Background(), d)
	code := Run(ctx, io, func(k string) string { return e[k] }, append([]string{cobra.ShellCompRequestCmd}, args...))
	r := result{code: code, stdout: out.String(), stderr: errOut.String(),
		stdoutLines: strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")}
	if r.code != 0 {
		t.Fatalf("__complete %q: exit %d, stderr %q", args, r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "Completion ended with directive:") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("__complete %q: stderr %q, want only cobra's directive note", args, r.stderr)
	}
	lines := r.stdoutLines
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, ":") {
		t.Fatalf("__complete %q: no directive in %q", args, r.stdout)
	}
	return completion{candidates: lines[:len(lines)-1], directive: last}
}

func (c completion) has(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(c.candidates, w) {
			t.Errorf("candidates %q lack %q", c.candidates, w)
		}
	}
}

func (c completion) exactly(t *testing.T, directive string, want ...string) {
	t.Helper()
	if !slices.Equal(c.candidates, want) && !(len(want) == 0 && len(c.candidates) == 0) {
		t.Errorf("candidates %q, want %q", c.candidates, want)
	}
	if c.directive != directive {
		t.Errorf("directive %s, want %s", c.directive, directive)
	}
}

// The directives as the shell scripts read them.
const (
	dirDefault = ":0" // the shell's own file completion
	dirNoFile  = ":4" // NoFileComp
	dirNoSpace = ":6" // NoSpace|NoFileComp: the word goes on (a directory, "ID:")
)

func createSandbox(t *testing.T, e env, template string) string {
	t.Helper()
	r := run(t, e, false, "create", "--template", template, "-q")
	if r.code != 0 {
		t.Fatalf("create: exit %d, %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

func TestCompleteSandboxIDsEverywhereAnIDGoes(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	base := createSandbox(t, e, "base")
	ci := createSandbox(t, e, "code-interpreter")
	for _, line := range [][]string{
		{"info"}, {"kill"}, {"timeout"}, {"pause"}, {"connect"}, {"url"}, {"exec"},
		{"ps"}, {"ps", "kill"}, {"ps", "stdin"}, {"ps", "attach"},
		{"files", "ls"}, {"files", "stat"}, {"files", "read"}, {"files", "write"},
		{"files", "mkdir"}, {"files", "mv"}, {"files", "rm"},
		{"run-code"}, {"run-code", "contexts", "list"}, {"run-code", "contexts", "create"},
		{"run-code", "contexts", "restart"}, {"run-code", "contexts", "delete"},
	} {
		t.Run(strings.Join(line, " "), func(t *testing.T) {
			t.Parallel()
			c := complete(t, e, append(line, "")...)
			c.has(t, base+"\tbase, running", ci+"\tcode-interpreter, running")
			if c.directive != dirNoFile {
				t.Errorf("directive %s, want %s (no local files)", c.directive, dirNoFile)
			}
		})
	}
	t.Run("second argument", func(t *testing.T) {
		t.Parallel()
		complete(t, e, "info", base, "").exactly(t, dirNoFile)
		complete(t, e, "url", base, "").exactly(t, dirNoFile)
		complete(t, e, "run-code", base, "").exactly(t, dirNoFile)
	})
	t.Run("exec after --", func(t *testing.T) {
		t.Parallel()
		complete(t, e, "exec", base, "--", "").exactly(t, dirNoFile)
	})
	t.Run("prefix", func(t *testing.T) {
		t.Parallel()
		prefix := strings.TrimSuffix(ci, ci[len(ci)-5:]) // default--code-interpreter-
		complete(t, e, "info", prefix).exactly(t, dirNoFile, ci+"\tcode-interpreter, running")
		complete(t, e, "info", "nothing-like-it").exactly(t, dirNoFile)
	})
	t.Run("kill leaves out the IDs given", func(t *testing.T) {
		t.Parallel()
		complete(t, e, "kill", base, "").exactly(t, dirNoFile, ci+"\tcode-interpreter, running")
		complete(t, e, "kill", "--all", "").exactly(t, dirNoFile)
	})
	t.Run("without descriptions", func(t *testing.T) {
		t.Parallel()
		c := complete(t, e, "info", base[:len(base)-2])
		// With a hang guard's bound, as complete's: a Tab's 2 s is not
		// what this tests.
		io, _, out, _ := output.Test(false)
		ctx := cmdutil.WithCompletionBound(context.Background(), 2*time.Minute)
		Run(ctx, io, func(k string) string { return e[k] }, []string{cobra.ShellCompNoDescRequestCmd, "info", base[:len(base)-2]})
		if want := base + "\n" + c.directive + "\n"; out.String() != want {
			t.Errorf("stdout %q, want %q", out.String(), want)
		}
	})
}

func TestCompletePauseOffersRunningAndResumePaused(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	running := createSandbox(t, e, "base")
	paused := createSandbox(t, e, "base")
	if r := run(t, e, false, "pause", paused); r.code != 0 {
		t.Fatalf("pause: %s", r.stderr)
	}
	complete(t, e, "pause", "").exactly(t, dirNoFile, running+"\tbase, running")
	complete(t, e, "resume", "").exactly(t, dirNoFile, paused+"\tbase, paused")
	complete(t, e, "info", "").has(t, running+"\tbase, running", paused+"\tbase, paused")
}

func TestCompleteIsQuietWithoutConfiguration(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{
		"no provider": {"ABX_PROVIDER": ""},
		"no API key":  {"ABX_ALICLOUD_CONTAINER_API_KEY": ""},
		"no endpoint": {"ABX_ALICLOUD_CONTAINER_BASE_URL": ""},
		"bad setting": {"ABX_ALICLOUD_CONTAINER_REQUEST_TIMEOUT": "soon"},
		// Reading the key from stdin would wait on the user's terminal.
		"key on stdin": {"ABX_ALICLOUD_CONTAINER_API_KEY": "", "ABX_ALICLOUD_CONTAINER_API_KEY_FILE": "-"},
	}
	for name, env := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, e := fakeManager(t)
			for k, v := range env {
				e[k] = v
			}
			complete(t, e, "info", "").exactly(t, dirNoFile)
			complete(t, e, "files", "ls", "sb-1", "").exactly(t, dirNoFile)
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the server got %d requests, want 0", n)
			}
		})
	}
	t.Run("unknown provider flag", func(t *testing.T) {
		t.Parallel()
		_, e := fakeManager(t)
		complete(t, e, "--provider", "aws", "info", "").exactly(t, dirNoFile)
	})
	t.Run("debug", func(t *testing.T) {
		t.Parallel()
		_, e := fakeManager(t)
		id := createSandbox(t, e, "base")
		complete(t, e, "--debug", "info", "").exactly(t, dirNoFile, id+"\tbase, running")
	})
}

func TestCompleteGivesUpOnASlowService(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = hang.URL
	// Only completion's own bound, here a tenth of a second rather than a
	// Tab's 2 s, can end it: the request's is far past the hang guard.
	e["ABX_ALICLOUD_CONTAINER_REQUEST_TIMEOUT"] = "10m"
	start := time.Now()
	completeWithin(t, e, 100*time.Millisecond, "info", "").exactly(t, dirNoFile)
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("completion took %s, want about its bound", d)
	}
}

func TestCompleteFlagValues(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"list", "-o", ""}, []string{"table", "wide", "json", "name"}},
		{[]string{"info", "--output", "j"}, []string{"json"}},
		{[]string{"list", "--provider", ""}, []string{"alicloud-container"}},
		{[]string{"list", "--state", ""}, []string{"running", "paused"}},
		{[]string{"kill", "--all", "--state", "running,"}, []string{"running,paused"}},
		{[]string{"create", "--template", ""}, []string{"base\tcommon template name", "code-interpreter\tcommon template name"}},
		{[]string{"create", "-t", "c"}, []string{"code-interpreter\tcommon template name"}},
		{[]string{"run-code", "--language", ""}, []string{"bash", "java", "javascript", "python", "r", "typescript"}},
		{[]string{"run-code", "contexts", "create", "sb-1", "-l", "ja"}, []string{"java", "javascript"}},
		{[]string{"ps", "kill", "sb-1", "1", "--signal", ""}, []string{"TERM", "KILL"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			complete(t, e, tc.args...).exactly(t, dirNoFile, tc.want...)
		})
	}
}

// dataPlane routes envd requests through the fake's private paths, the
// way the files scripts reach a sandbox on loopback.
func dataPlane(t *testing.T) env {
	t.Helper()
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = strings.TrimSuffix(e["ABX_ALICLOUD_CONTAINER_BASE_URL"], "/") + "/kruise/api"
	return e
}

func TestCompleteRemotePaths(t *testing.T) {
	t.Parallel()
	e := dataPlane(t)
	id := createSandbox(t, e, "base")
	for _, dir := range []string{"jobs/sub", "jobsite"} {
		if r := run(t, e, false, "files", "mkdir", "-p", id, dir); r.code != 0 {
			t.Fatalf("mkdir %s: %s", dir, r.stderr)
		}
	}
	io, in, _, errOut := output.Test(false)
	in.WriteString("hello\n")
	if code := runWith(io, e, "files", "write", id, "jobs/notes.txt"); code != 0 {
		t.Fatalf("write: %s", errOut)
	}

	complete(t, e, "files", "ls", id, "jo").exactly(t, dirNoSpace, "jobs/", "jobsite/")
	complete(t, e, "files", "ls", id, "jobs/").exactly(t, dirNoSpace, "jobs/notes.txt", "jobs/sub/")
	complete(t, e, "files", "read", id, "jobs/n").exactly(t, dirNoFile, "jobs/notes.txt")
	complete(t, e, "files", "mv", id, "jobs/notes.txt", "jobs/s").exactly(t, dirNoSpace, "jobs/sub/")
	complete(t, e, "files", "stat", id, "jobs/", "").exactly(t, dirNoFile)
	// The fake's paths are real ones under its state directory: ask it
	// where the home is.
	st := run(t, e, false, "files", "stat", id, ".", "-o", "json")
	var home struct{ Path string }
	if err := json.Unmarshal([]byte(st.stdout), &home); err != nil || !strings.HasPrefix(home.Path, "/") {
		t.Fatalf("stat .: %q %v", st.stdout, err)
	}
	complete(t, e, "files", "ls", id, home.Path+"/job").exactly(t, dirNoSpace, home.Path+"/jobs/", home.Path+"/jobsite/")
	complete(t, e, "files", "ls", id, "nowhere/").exactly(t, dirNoFile)
	complete(t, e, "files", "ls", "no-such-sandbox", "").exactly(t, dirNoFile)

	t.Run("cp", func(t *testing.T) {
		t.Parallel()
		complete(t, e, "files", "cp", "").exactly(t, dirNoSpace, id+":\tbase, running")
		complete(t, e, "files", "cp", id+":jobs/").exactly(t, dirNoSpace, id+":jobs/notes.txt", id+":jobs/sub/")
		complete(t, e, "files", "cp", "./data.csv", id[:5]).exactly(t, dirNoSpace, id+":\tbase, running")
		// The other side of a remote source is local: the shell's files.
		complete(t, e, "files", "cp", id+":jobs/notes.txt", "").exactly(t, dirDefault)
		complete(t, e, "files", "cp", "./").exactly(t, dirDefault)
		complete(t, e, "files", "cp", "zz").exactly(t, dirDefault)
	})
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	e := env{} // no configuration needed
	for shell, want := range map[string]string{
		"bash":       "__start_abx",
		"zsh":        "#compdef abx",
		"fish":       "complete -c abx",
		"powershell": "Register-ArgumentCompleter",
	} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			r := run(t, e, false, "completion", shell)
			if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, want) {
				t.Errorf("exit %d, stderr %q, script has %q: %v", r.code, r.stderr, want, strings.Contains(r.stdout, want))
			}
			if !strings.Contains(r.stdout, cobra.ShellCompRequestCmd) {
				t.Errorf("the %s script does not ask abx for candidates", shell)
			}
		})
	}
	r := run(t, e, false, "completion", "--help")
	for _, shell := range []string{"bash", "zsh", "fish", "PowerShell", "bash-completion"} {
		if !strings.Contains(r.stdout, shell) {
			t.Errorf("completion --help does not mention %s", shell)
		}
	}
	if r := run(t, e, false, "--help"); !strings.Contains(r.stdout, "completion") {
		t.Errorf("abx --help does not list completion")
	}
}

// Every command that takes a sandbox ID completes it, and every flag with
// a fixed set of values completes them: each verb declares its own, so a
// new verb that forgets is caught here.
func TestEveryCommandCompletes(t *testing.T) {
	t.Parallel()
	io, _, _, _ := output.Test(false)
	root := NewCmdRoot(factory.New(io, func(string) string { return "" }, factory.Options{}))
	valued := []string{"state", "template", "language", "signal", "output", "provider"}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || strings.HasSuffix(c.Short, "(not supported by every provider)") {
			return
		}
		if strings.Contains(c.Use, " ID") && c.ValidArgsFunction == nil {
			t.Errorf("%s takes an ID but completes none", c.CommandPath())
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if _, ok := c.GetFlagCompletionFunc(fl.Name); slices.Contains(valued, fl.Name) && !ok {
				t.Errorf("%s --%s has no completion", c.CommandPath(), fl.Name)
			}
		})
	}
	walk(root)
}
