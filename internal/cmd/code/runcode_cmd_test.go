package code

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// parsed is what NewCmdRunCode makes of argv: RunCodeOptions without the
// streams and clients.
type parsed struct {
	ID      string
	Request codeinterp.Request
	File    string
	Timeout time.Duration
	SaveDir string
}

// runCodeArgv builds run-code for factorytest.Parse, over stdin: its run
// function keeps what argv made of the options, which must carry the
// factory's printer, streams and client.
func runCodeArgv(stdin string) func(*cmdutil.Factory, *any) *cobra.Command {
	return func(f *cmdutil.Factory, got *any) *cobra.Command {
		f.IO.In = strings.NewReader(stdin)
		return NewCmdRunCode(f, func(_ context.Context, o *RunCodeOptions) error {
			*got = parsed{ID: o.ID, Request: o.Request, File: o.File, Timeout: o.Timeout, SaveDir: o.SaveDir}
			if o.Printer != f.Printer || o.IO != f.IO || o.Sandboxes != f.Sandboxes {
				*got = "options without the factory's printer, streams and client"
			}
			return nil
		})
	}
}

func TestNewCmdRunCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"job.py": "print('from a file')\n", "not-a-dir": ""})
	script, aFile := filepath.Join(dir, "job.py"), filepath.Join(dir, "not-a-dir")
	code := func(code string) codeinterp.Request { return codeinterp.Request{Code: code} }

	// argv becomes the run's inputs as given: their rules (the language,
	// the context, the environment, the code itself) are the operation's
	// (TestRunCodeRefusals). Usage errors are abx's own failures: E1xxx,
	// which exit 125 in a pass-through command like every other
	// (abxerr.Exit).
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "code from the argument", Argv: []string{"sb-1", "1+1"}, Want: parsed{ID: "sb-1", Request: code("1+1")}},
		{Name: "sandbox/ID", Argv: []string{"sandbox/sb-1", "1+1"}, Want: parsed{ID: "sb-1", Request: code("1+1")}},
		{Name: "code from a file", Argv: []string{"sb-1", "-f", script}, Want: parsed{ID: "sb-1", File: script}},
		{Name: "code from stdin", Argv: []string{"sb-1", "-"}, Want: parsed{ID: "sb-1", File: "-"}},
		{Name: "code from -f -", Argv: []string{"sb-1", "-f", "-"}, Want: parsed{ID: "sb-1", File: "-"}},
		{Name: "empty code argument", Argv: []string{"sb-1", ""}, Want: parsed{ID: "sb-1", Request: code("")}},
		{Name: "language", Argv: []string{"sb-1", "--language", "bash", "ls /"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "ls /", Language: "bash"}}},
		{Name: "language alias", Argv: []string{"sb-1", "-l", "JS", "1"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "JS"}}},
		{Name: "context", Argv: []string{"sb-1", "--context", "ctx-1", "x"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "x", ContextID: "ctx-1"}}},
		{Name: "env", Argv: []string{"sb-1", "-e", "A=1", "--env", "B=x=y", "1"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", EnvVars: map[string]string{"A": "1", "B": "x=y"}}}},
		{Name: "timeout", Argv: []string{"sb-1", "--timeout", "90s", "1"}, Want: parsed{ID: "sb-1", Request: code("1"), Timeout: 90 * time.Second}},
		{Name: "timeout in seconds", Argv: []string{"sb-1", "--timeout", "5", "1"}, Want: parsed{ID: "sb-1", Request: code("1"), Timeout: 5 * time.Second}},
		{Name: "timeout of two days", Argv: []string{"sb-1", "--timeout", "2d", "1"}, Want: parsed{ID: "sb-1", Request: code("1"), Timeout: 48 * time.Hour}},
		{Name: "negative timeout", Argv: []string{"sb-1", "--timeout=-5s", "1"}, Want: parsed{ID: "sb-1", Request: code("1"), Timeout: -5 * time.Second}},
		{Name: "save-dir", Argv: []string{"sb-1", "--save-dir", filepath.Join(dir, "out"), "1"},
			Want: parsed{ID: "sb-1", Request: code("1"), SaveDir: filepath.Join(dir, "out")}},
		{Name: "stream", Argv: []string{"sb-1", "--stream", "1"}, Want: parsed{ID: "sb-1", Request: code("1")}},

		{Name: "no code", Argv: []string{"sb-1"}, WantErr: "abx run-code needs code"},
		{Name: "no ID", Argv: []string{}, WantErr: "run-code needs ID [CODE]"},
		{Name: "code twice", Argv: []string{"sb-1", "1+1", "-f", script}, WantErr: "give the code once"},
		// An empty --context is most often an unset variable: it is not
		// the flag left out.
		{Name: "empty context", Argv: []string{"sb-1", "-c", "", "1"}, WantErr: `invalid --context "": it is empty`},
		{Name: "env without =", Argv: []string{"sb-1", "-e", "X", "1"}, WantErr: `invalid --env "X"`},
		{Name: "bad timeout", Argv: []string{"sb-1", "--timeout", "soon", "1"}, WantErr: `invalid --timeout "soon"`},
		{Name: "fractional timeout", Argv: []string{"sb-1", "--timeout", "1.5s", "1"}, WantErr: "whole seconds"},
		{Name: "zero timeout", Argv: []string{"sb-1", "--timeout", "0", "1"}, WantErr: `invalid --timeout "0": must be between 1s and 24h`},
		{Name: "save-dir is a file", Argv: []string{"sb-1", "--save-dir", aFile, "1"}, WantErr: "it is a file"},
		{Name: "three args", Argv: []string{"sb-1", "1", "2"}, WantErr: "takes ID [CODE], got 3 arguments"},
		{Name: "bad sandbox ID", Argv: []string{"a/b", "1"}, WantErr: `invalid sandbox ID "a/b"`},
		{Name: "blank sandbox ID", Argv: []string{" ", "1"}, WantErr: "invalid sandbox ID"},
	}, runCodeArgv(""))
	// cobra's own refusal is not an abxerr.Error, but exits 125 all the same.
	t.Run("unknown flag", func(t *testing.T) {
		t.Parallel()
		f, _ := factorytest.NewFactory(false, nil, "")
		err := cmdtest.Exec(NewCmdRunCode(f, func(context.Context, *RunCodeOptions) error { return nil }), "sb-1", "--colour", "1")
		if err == nil || !strings.Contains(err.Error(), "unknown flag: --colour") || abxerr.Exit(err, true) != abxerr.ExitOwnFailure {
			t.Errorf("error %v (exit %d), want unknown flag: --colour, exit 125", err, abxerr.Exit(err, true))
		}
	})
}

func TestRunCodeAnnotations(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, nil, "")
	cmd := NewCmdRunCode(f, nil)
	if !cmdutil.IsPassThrough(cmd) {
		t.Error("run-code is not marked pass-through: its failures would not exit 125")
	}
	if op := cmdutil.Operation(cmd); op == nil || op.Name != "code.run" || op.Capability != provider.CodeInterpret {
		t.Errorf("run-code does %+v", op)
	}
	contexts, _, err := cmd.Find([]string{"contexts"})
	if err != nil || contexts.Name() != "contexts" {
		t.Fatalf("no contexts subcommand: %v", err)
	}
	for _, name := range []string{"list", "create", "restart", "delete"} {
		sub, _, err := contexts.Find([]string{name})
		if err != nil || sub.Name() != name {
			t.Fatalf("no contexts %s: %v", name, err)
		}
		if op := cmdutil.Operation(sub); op == nil || op.Capability != provider.CodeInterpret {
			t.Errorf("contexts %s does %+v", name, op)
		}
		// The contexts commands exit as every command does: 3 for a
		// context that does not exist.
		if cmdutil.IsPassThrough(sub) {
			t.Errorf("contexts %s is pass-through", name)
		}
	}
}
