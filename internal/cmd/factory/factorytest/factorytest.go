// Package factorytest makes, for the command packages' tests, the Factory
// abx builds (factory.New) over a test's buffers and variables, and runs
// their TestNewCmdX tables through it. It is apart from cmdtest because
// the factory links the providers abx has, and cmdtest links none.
package factorytest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

// Streams are a test's buffers behind a Factory.
type Streams struct {
	In, Out, ErrOut *bytes.Buffer
}

// NewFactory returns a factory whose streams are buffers (a pipe unless
// tty is set), whose environment is env and nothing else, and whose output
// format is format ("" for table).
//
// The format JSONLines stands for a verb's --stream: JSON, events one a
// line.
func NewFactory(tty bool, env map[string]string, format output.Format) (*cmdutil.Factory, Streams) {
	io, in, out, errOut := output.Test(tty)
	// The settings' flags stay unset: the environment alone configures
	// the provider.
	f := factory.New(io, func(k string) string { return env[k] }, factory.Options{})
	switch format {
	case "":
	case JSONLines:
		f.Printer.AskJSONLines(true)
	default:
		if err := f.Printer.FormatValue().Set(string(format)); err != nil {
			panic(err)
		}
	}
	return f, Streams{In: in, Out: out, ErrOut: errOut}
}

// JSONLines is NewFactory's format for a verb's JSON Lines flag.
const JSONLines output.Format = "json-lines"

// ArgvCase is one command line of a TestNewCmdX table and what it must
// become: the inputs its run function sees (Want), or an error before
// anything runs that says WantErr.
type ArgvCase struct {
	Name    string
	Argv    []string
	Env     map[string]string // the environment the command reads
	Want    any
	WantErr string
}

// Parse runs each case through the command build makes, whose run
// function stores what it was given in *got. An error case must fail with
// a usage or input error (E1xxx) and never reach the run function.
func Parse(t *testing.T, cases []ArgvCase, build func(f *cmdutil.Factory, got *any) *cobra.Command) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			f, _ := NewFactory(false, tc.Env, "")
			var got any
			err := cmdtest.Exec(build(f, &got), tc.Argv...)
			if tc.WantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.WantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.WantErr)
				}
				if c := abxerr.From(err).Code; !strings.HasPrefix(string(c), "E1") {
					t.Errorf("code %s, want a usage or input error (E1xxx)", c)
				}
				if got != nil {
					t.Errorf("ran with %+v after an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.Want) {
				t.Errorf("got %+v\nwant %+v", got, tc.Want)
			}
		})
	}
}
