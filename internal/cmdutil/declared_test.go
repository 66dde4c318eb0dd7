package cmdutil

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/sandboxes"
)

// An operation declared whole with an input of every kind: the command
// built from it reads each as its kind reads (a flag without a value, a
// duration, pairs gathered, the last of the others), and its help names
// each flag's type as the hand-written commands do.
func declaredOfEveryKind() *sandboxes.Operation {
	return &sandboxes.Operation{
		Name: "test.kinds",
		Door: &sandboxes.Door{Use: "kinds ID", Short: "every kind"},
		Inputs: []sandboxes.Input{
			{Name: "id", Positional: true, Required: true},
			{Name: "force", Kind: sandboxes.Flag, Usage: "do it anyway"},
			{Name: "count", Kind: sandboxes.Number, Usage: "how many"},
			{Name: "wait", Kind: sandboxes.Duration, Usage: "how long to wait"},
			{Name: "lifetime", Kind: sandboxes.Seconds, Usage: "how long it lives"},
			{Name: "env", Kind: sandboxes.Pairs, Usage: "variables KEY=VALUE (repeatable)"},
			{Name: "mode", Kind: sandboxes.Choice, Enum: []string{"fast", "safe"}, Usage: "how"},
		},
	}
}

func runDeclared(t *testing.T, argv ...string) (sandboxes.Values, error) {
	t.Helper()
	var got sandboxes.Values
	cmd, _ := newDeclared(&Factory{}, declaredOfEveryKind(), func(_ context.Context, o *DeclaredOptions) error {
		got = o.Values
		return nil
	})
	cmd.SetArgs(argv)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return got, cmd.Execute()
}

func TestDeclaredFlagsReadByKind(t *testing.T) {
	t.Parallel()
	got, err := runDeclared(t, "sb", "--force", "--count", "3", "--wait", "1.5s", "--lifetime", "2m",
		"--env", "A=1", "--env", "B=2", "--mode", "safe", "--mode", "fast")
	if err != nil {
		t.Fatal(err)
	}
	want := sandboxes.Values{
		"id": "sb", "force": true, "count": int64(3), "wait": 1500 * time.Millisecond, "lifetime": 2 * time.Minute,
		"env": map[string]string{"A": "1", "B": "2"}, "mode": "fast",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %#v\nwant %#v", got, want)
	}

	got, err = runDeclared(t, "sb", "--force=false")
	if err != nil || got.Flag("force") {
		t.Errorf("--force=false: %v, %#v", err, got)
	}
	for _, bad := range [][]string{{"--count", "many"}, {"--wait", "soon"}, {"--env", "A"}, {"--force=maybe"}} {
		if _, err := runDeclared(t, append([]string{"sb"}, bad...)...); err == nil || !strings.Contains(err.Error(), "invalid --"+strings.TrimPrefix(strings.SplitN(bad[0], "=", 2)[0], "--")) {
			t.Errorf("%v: error %v, want the flag's own words", bad, err)
		}
	}
}

func TestDeclaredFlagsShowTheirType(t *testing.T) {
	t.Parallel()
	cmd, _ := newDeclared(&Factory{}, declaredOfEveryKind(), nil)
	usage := cmd.Flags().FlagUsages()
	for _, want := range []string{"--force ", "--count int", "--wait string", "--lifetime string", "--env stringArray", "--mode string"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
	if strings.Contains(usage, "--force bool") || strings.Contains(usage, "--force string") {
		t.Errorf("--force shows a value:\n%s", usage)
	}
}
