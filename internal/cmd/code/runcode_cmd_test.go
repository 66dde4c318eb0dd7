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
			*got = parsed{ID: o.ID, Request: o.Request, Timeout: o.Timeout, SaveDir: o.SaveDir}
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
	py := func(code string) codeinterp.Request { return codeinterp.Request{Code: code, Language: "python"} }

	// Usage errors are abx's own failures: E1xxx, which exit 125 in a
	// pass-through command like every other (abxerr.Exit).
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "code from the argument", Argv: []string{"sb-1", "1+1"}, Want: parsed{ID: "sb-1", Request: py("1+1")}},
		{Name: "sandbox/ID", Argv: []string{"sandbox/sb-1", "1+1"}, Want: parsed{ID: "sb-1", Request: py("1+1")}},
		{Name: "code from a file", Argv: []string{"sb-1", "-f", script}, Want: parsed{ID: "sb-1", Request: py("print('from a file')\n")}},
		{Name: "language", Argv: []string{"sb-1", "--language", "bash", "ls /"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "ls /", Language: "bash"}}},
		{Name: "language alias", Argv: []string{"sb-1", "-l", "JS", "1"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "javascript"}}},
		{Name: "language alias ts", Argv: []string{"sb-1", "-l", "ts", "1"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "typescript"}}},
		{Name: "context", Argv: []string{"sb-1", "--context", "ctx-1", "x"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "x", ContextID: "ctx-1"}}},
		{Name: "env", Argv: []string{"sb-1", "-e", "A=1", "--env", "B=x=y", "1"},
			Want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "python", EnvVars: map[string]string{"A": "1", "B": "x=y"}}}},
		{Name: "timeout", Argv: []string{"sb-1", "--timeout", "90s", "1"}, Want: parsed{ID: "sb-1", Request: py("1"), Timeout: 90 * time.Second}},
		{Name: "timeout in seconds", Argv: []string{"sb-1", "--timeout", "5", "1"}, Want: parsed{ID: "sb-1", Request: py("1"), Timeout: 5 * time.Second}},
		{Name: "save-dir", Argv: []string{"sb-1", "--save-dir", filepath.Join(dir, "out"), "1"},
			Want: parsed{ID: "sb-1", Request: py("1"), SaveDir: filepath.Join(dir, "out")}},
		{Name: "stream", Argv: []string{"sb-1", "--stream", "1"}, Want: parsed{ID: "sb-1", Request: py("1")}},

		{Name: "no code", Argv: []string{"sb-1"}, WantErr: "abx run-code needs code"},
		{Name: "no ID", Argv: []string{}, WantErr: "run-code needs ID [CODE]"},
		{Name: "code twice", Argv: []string{"sb-1", "1+1", "-f", script}, WantErr: "give the code once"},
		{Name: "empty code", Argv: []string{"sb-1", "  "}, WantErr: "the code is empty"},
		// An argument given empty (an unset variable) is empty code, as an
		// empty stdin is: E1002, not a missing argument.
		{Name: "empty code argument", Argv: []string{"sb-1", ""}, WantErr: "the code is empty"},
		{Name: "missing file", Argv: []string{"sb-1", "-f", filepath.Join(dir, "missing.py")}, WantErr: "cannot read the code"},
		{Name: "unknown language", Argv: []string{"sb-1", "--language", "cobol", "1"}, WantErr: `unknown --language "cobol"`},
		{Name: "language and context", Argv: []string{"sb-1", "-l", "python", "-c", "ctx", "1"}, WantErr: "--language and --context exclude each other"},
		{Name: "bad context ID", Argv: []string{"sb-1", "-c", "a/b", "1"}, WantErr: `invalid context ID "a/b"`},
		{Name: "empty context ID", Argv: []string{"sb-1", "-c", "", "1"}, WantErr: `invalid context ID ""`},
		{Name: "env without =", Argv: []string{"sb-1", "-e", "X", "1"}, WantErr: `invalid --env "X"`},
		{Name: "env with a quote", Argv: []string{"sb-1", "-e", "NAME=it's", "1"}, WantErr: "quotes, backslashes and line breaks cannot be passed"},
		{Name: "env with a line break", Argv: []string{"sb-1", "-e", "A=1\n2", "1"}, WantErr: "quotes, backslashes and line breaks cannot be passed"},
		{Name: "bad timeout", Argv: []string{"sb-1", "--timeout", "soon", "1"}, WantErr: `invalid --timeout "soon"`},
		{Name: "fractional timeout", Argv: []string{"sb-1", "--timeout", "1.5s", "1"}, WantErr: "whole seconds"},
		{Name: "save-dir is a file", Argv: []string{"sb-1", "--save-dir", aFile, "1"}, WantErr: "it is a file"},
		{Name: "three args", Argv: []string{"sb-1", "1", "2"}, WantErr: "takes ID [CODE], got 3 arguments"},
		{Name: "bad sandbox ID", Argv: []string{"a/b", "1"}, WantErr: `invalid sandbox ID "a/b"`},
		{Name: "blank sandbox ID", Argv: []string{" ", "1"}, WantErr: "invalid sandbox ID"},
	}, runCodeArgv(""))
	// Code from stdin, each with its own.
	for stdin, tc := range map[string]factorytest.ArgvCase{
		"x = 1\nx\n": {Name: "code from stdin", Argv: []string{"sb-1", "-"}, Want: parsed{ID: "sb-1", Request: py("x = 1\nx\n")}},
		"2*3":        {Name: "code from -f -", Argv: []string{"sb-1", "-f", "-"}, Want: parsed{ID: "sb-1", Request: py("2*3")}},
		"\n":         {Name: "empty stdin", Argv: []string{"sb-1", "-"}, WantErr: "the code is empty"},
	} {
		factorytest.Parse(t, []factorytest.ArgvCase{tc}, runCodeArgv(stdin))
	}
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

// TestRunCodeStdinReadOnlyWhenAsked: a script's inherited stdin is not
// read unless '-' says so (docs/run-code.md).
func TestRunCodeStdinReadOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	f, streams := factorytest.NewFactory(false, nil, "")
	streams.In.WriteString("not code")
	cmd := NewCmdRunCode(f, func(context.Context, *RunCodeOptions) error { return nil })
	if err := cmdtest.Exec(cmd, "sb-1", "1+1"); err != nil {
		t.Fatal(err)
	}
	if streams.In.String() != "not code" {
		t.Errorf("stdin was read: %q left", streams.In.String())
	}
}

func TestRunCodeAnnotations(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, nil, "")
	cmd := NewCmdRunCode(f, nil)
	if !cmdutil.IsPassThrough(cmd) {
		t.Error("run-code is not marked pass-through: its failures would not exit 125")
	}
	if c := cmdutil.Capability(cmd); c != provider.CodeInterpret {
		t.Errorf("run-code needs %q", c)
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
		if cmdutil.Capability(sub) != provider.CodeInterpret {
			t.Errorf("contexts %s needs %q", name, cmdutil.Capability(sub))
		}
		// The contexts commands exit as every command does: 3 for a
		// context that does not exist.
		if cmdutil.IsPassThrough(sub) {
			t.Errorf("contexts %s is pass-through", name)
		}
	}
}
