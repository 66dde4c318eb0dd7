package code

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/provider"
)

// parsed is what NewCmdRunCode makes of argv: RunCodeOptions without the
// streams and clients.
type parsed struct {
	ID      string
	Request codeinterp.Request
	Timeout time.Duration
	SaveDir string
	Stream  bool
}

func TestNewCmdRunCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "job.py")
	if err := os.WriteFile(script, []byte("print('from a file')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	py := func(code string) codeinterp.Request { return codeinterp.Request{Code: code, Language: "python"} }

	tests := []struct {
		name    string
		argv    []string
		stdin   string
		want    parsed
		wantErr string // in the error's message; its exit status is then 125
	}{
		{name: "code from the argument", argv: []string{"sb-1", "1+1"}, want: parsed{ID: "sb-1", Request: py("1+1")}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1", "1+1"}, want: parsed{ID: "sb-1", Request: py("1+1")}},
		{name: "code from a file", argv: []string{"sb-1", "-f", script}, want: parsed{ID: "sb-1", Request: py("print('from a file')\n")}},
		{name: "code from stdin", argv: []string{"sb-1", "-"}, stdin: "x = 1\nx\n", want: parsed{ID: "sb-1", Request: py("x = 1\nx\n")}},
		{name: "code from -f -", argv: []string{"sb-1", "-f", "-"}, stdin: "2*3", want: parsed{ID: "sb-1", Request: py("2*3")}},
		{name: "language", argv: []string{"sb-1", "--language", "bash", "ls /"},
			want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "ls /", Language: "bash"}}},
		{name: "language alias", argv: []string{"sb-1", "-l", "JS", "1"},
			want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "javascript"}}},
		{name: "language alias ts", argv: []string{"sb-1", "-l", "ts", "1"},
			want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "typescript"}}},
		{name: "context", argv: []string{"sb-1", "--context", "ctx-1", "x"},
			want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "x", ContextID: "ctx-1"}}},
		{name: "env", argv: []string{"sb-1", "-e", "A=1", "--env", "B=x=y", "1"},
			want: parsed{ID: "sb-1", Request: codeinterp.Request{Code: "1", Language: "python", EnvVars: map[string]string{"A": "1", "B": "x=y"}}}},
		{name: "timeout", argv: []string{"sb-1", "--timeout", "90s", "1"}, want: parsed{ID: "sb-1", Request: py("1"), Timeout: 90 * time.Second}},
		{name: "timeout in seconds", argv: []string{"sb-1", "--timeout", "5", "1"}, want: parsed{ID: "sb-1", Request: py("1"), Timeout: 5 * time.Second}},
		{name: "save-dir", argv: []string{"sb-1", "--save-dir", filepath.Join(dir, "out"), "1"},
			want: parsed{ID: "sb-1", Request: py("1"), SaveDir: filepath.Join(dir, "out")}},
		{name: "stream", argv: []string{"sb-1", "--stream", "1"}, want: parsed{ID: "sb-1", Request: py("1"), Stream: true}},

		{name: "no code", argv: []string{"sb-1"}, wantErr: "abx run-code needs code"},
		{name: "no ID", argv: []string{}, wantErr: "run-code needs ID [CODE]"},
		{name: "code twice", argv: []string{"sb-1", "1+1", "-f", script}, wantErr: "give the code once"},
		{name: "empty code", argv: []string{"sb-1", "  "}, wantErr: "the code is empty"},
		{name: "empty stdin", argv: []string{"sb-1", "-"}, stdin: "\n", wantErr: "the code is empty"},
		{name: "missing file", argv: []string{"sb-1", "-f", filepath.Join(dir, "missing.py")}, wantErr: "cannot read the code"},
		{name: "unknown language", argv: []string{"sb-1", "--language", "cobol", "1"}, wantErr: `unknown --language "cobol"`},
		{name: "language and context", argv: []string{"sb-1", "-l", "python", "-c", "ctx", "1"}, wantErr: "--language and --context exclude each other"},
		{name: "bad context ID", argv: []string{"sb-1", "-c", "a/b", "1"}, wantErr: `invalid context ID "a/b"`},
		{name: "empty context ID", argv: []string{"sb-1", "-c", "", "1"}, wantErr: `invalid context ID ""`},
		{name: "env without =", argv: []string{"sb-1", "-e", "X", "1"}, wantErr: `invalid --env "X"`},
		{name: "env with a quote", argv: []string{"sb-1", "-e", "NAME=it's", "1"}, wantErr: "quotes, backslashes and line breaks cannot be passed"},
		{name: "env with a line break", argv: []string{"sb-1", "-e", "A=1\n2", "1"}, wantErr: "quotes, backslashes and line breaks cannot be passed"},
		{name: "bad timeout", argv: []string{"sb-1", "--timeout", "soon", "1"}, wantErr: `invalid --timeout "soon"`},
		{name: "fractional timeout", argv: []string{"sb-1", "--timeout", "1.5s", "1"}, wantErr: "whole seconds"},
		{name: "save-dir is a file", argv: []string{"sb-1", "--save-dir", aFile, "1"}, wantErr: "it is a file"},
		{name: "three args", argv: []string{"sb-1", "1", "2"}, wantErr: "takes ID [CODE], got 3 arguments"},
		{name: "bad sandbox ID", argv: []string{"a/b", "1"}, wantErr: `invalid sandbox ID "a/b"`},
		{name: "blank sandbox ID", argv: []string{" ", "1"}, wantErr: "invalid sandbox ID"},
		{name: "unknown flag", argv: []string{"sb-1", "--colour", "1"}, wantErr: "unknown flag: --colour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, streams := cmdtest.NewFactory(false, nil, "")
			streams.In.WriteString(tt.stdin)
			var got *RunCodeOptions
			cmd := NewCmdRunCode(f, func(_ context.Context, o *RunCodeOptions) error {
				got = o
				return nil
			})
			err := cmdtest.Exec(cmd, tt.argv...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				if got != nil {
					t.Error("run-code ran despite the error")
				}
				// Bad usage is abx's own failure: 125 in a pass-through
				// command, like every other (abxerr.Exit).
				if exit := abxerr.Exit(err, true); exit != abxerr.ExitOwnFailure {
					t.Errorf("exit %d, want 125", exit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := parsed{ID: got.ID, Request: got.Request, Timeout: got.Timeout, SaveDir: got.SaveDir, Stream: got.Stream}
			if !reflect.DeepEqual(p, tt.want) {
				t.Errorf("got  %+v\nwant %+v", p, tt.want)
			}
			if got.Printer != f.Printer || got.IO != f.IO || got.Interp == nil {
				t.Error("the options do not carry the factory's printer, streams and client")
			}
		})
	}
}

// TestRunCodeStdinReadOnlyWhenAsked: a script's inherited stdin is not
// read unless '-' says so (docs/run-code.md).
func TestRunCodeStdinReadOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	f, streams := cmdtest.NewFactory(false, nil, "")
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
	f, _ := cmdtest.NewFactory(false, nil, "")
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

func TestLanguages(t *testing.T) {
	t.Parallel()
	want := []string{"bash", "java", "javascript", "python", "r", "typescript"}
	if got := Languages(); !reflect.DeepEqual(got, want) {
		t.Errorf("Languages() = %v, want %v", got, want)
	}
}
