//go:build unix

package code

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// fake is the fake cluster (emutest.Cluster), whose code-interpreter
// sandboxes run a fake code interpreter (python3 kernels), the environment
// that points abx at it, and one such sandbox.
type fake struct {
	env map[string]string
	id  string // a code-interpreter sandbox
	p   provider.Provider
}

// newFake starts the fake cluster and makes one code-interpreter sandbox.
// The private protocol puts the data plane on the fake's own origin.
func newFake(t *testing.T) *fake {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the fake code interpreter runs it")
	}
	_, env := emutest.Cluster(t)
	env["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	fk := &fake{env: env}
	f, _ := fk.factory(t, "")
	p, err := f.Provider()
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Create(context.Background(), provider.CreateRequest{Template: "code-interpreter"})
	if err != nil {
		t.Fatal(err)
	}
	fk.id, fk.p = s.SandboxID, p
	return fk
}

// factory is a factory as the root leaves it (provider selected, format
// set), over buffers and the fake's environment.
func (fk *fake) factory(t *testing.T, format output.Format) (*cmdutil.Factory, factorytest.Streams) {
	t.Helper()
	f, streams := factorytest.NewFactory(false, fk.env, format)
	return f, streams
}

// run runs code in the fake's sandbox as run-code would, printing in
// format; the request's language is python unless req says otherwise.
func (fk *fake) run(t *testing.T, format output.Format, req codeinterp.Request, tweak ...func(*RunCodeOptions)) (factorytest.Streams, error) {
	t.Helper()
	f, streams := fk.factory(t, format)
	if req.ContextID == "" && req.Language == "" {
		req.Language = "python"
	}
	opts := &RunCodeOptions{IO: f.IO, sandboxInterp: sandboxInterp{Printer: f.Printer, Sandboxes: f.Sandboxes, ID: fk.id}, Request: req}
	for _, tw := range tweak {
		tw(opts)
	}
	// No deadline of its own: a slow machine (a 32 MiB image under the
	// race detector) is not a failure, and go test's -timeout ends a hang.
	err := runRunCode(t.Context(), opts)
	return streams, err
}

// contexts runs `abx run-code contexts argv...` on the fake, printing in
// format. Each of their calls has the request timeout for a deadline.
func (fk *fake) contexts(t *testing.T, format output.Format, argv ...string) (factorytest.Streams, error) {
	t.Helper()
	f, streams := fk.factory(t, format)
	return streams, cmdtest.Exec(NewCmdContexts(f), argv...)
}

// TestFakeContexts goes through a context's life in the fake code
// interpreter: create, list, run in it, restart, delete, and what is
// printed in each format.
func TestFakeContexts(t *testing.T) {
	t.Parallel()
	fk := newFake(t)

	streams, err := fk.contexts(t, output.Table, "create", fk.id, "--cwd", "~")
	cx := strings.TrimSuffix(streams.Out.String(), "\n")
	if err != nil || cx == "" || strings.Contains(cx, "\n") {
		t.Fatalf("create: %v, stdout %q: want the ID alone", err, streams.Out.String())
	}
	if want := "context " + cx + " created (python, ~)\n"; streams.ErrOut.String() != want {
		t.Errorf("create: stderr %q, want %q", streams.ErrOut.String(), want)
	}

	list := func(format output.Format) string {
		t.Helper()
		streams, err := fk.contexts(t, format, "list", fk.id)
		if err != nil {
			t.Fatal(err)
		}
		return streams.Out.String()
	}
	if names := strings.Fields(list(output.Name)); len(names) != 3 || !slices.Contains(names, cx) {
		t.Errorf("list -o name: %q, want the default contexts (python, javascript) and %s, bare", names, cx)
	}
	var contexts []codeinterp.Context
	if out := list(output.JSON); json.Unmarshal([]byte(out), &contexts) != nil ||
		!slices.Contains(contexts, codeinterp.Context{ID: cx, Language: "python", Cwd: "~"}) {
		t.Errorf("list -o json:\n%s", out)
	}
	if out := list(output.Table); !strings.Contains(out, cx+"\tpython\t~\n") {
		t.Errorf("list piped: %q", out)
	}

	// A context has variables of its own.
	if _, err := fk.run(t, output.Table, codeinterp.Request{Code: "y = 1"}); err != nil {
		t.Fatal(err)
	}
	out, err := fk.run(t, output.Table, codeinterp.Request{Code: "y", ContextID: cx})
	if exitOf(err) != 1 || !strings.Contains(out.ErrOut.String(), "NameError") {
		t.Errorf("the context saw the default one's y: exit %d, stderr %q", exitOf(err), out.ErrOut.String())
	}

	streams, err = fk.contexts(t, output.Name, "restart", fk.id, cx)
	if err != nil || streams.Out.String() != cx+"\n" || streams.ErrOut.String() != "" {
		t.Errorf("restart -o name: %v, stdout %q (want the bare ID), stderr %q", err, streams.Out.String(), streams.ErrOut.String())
	}

	streams, err = fk.contexts(t, output.JSON, "delete", fk.id, cx)
	if want := "{\n  \"id\": \"" + cx + "\",\n  \"action\": \"deleted\"\n}\n"; err != nil || streams.Out.String() != want {
		t.Errorf("delete -o json: %v, %s, want %s", err, streams.Out.String(), want)
	}

	// Gone: not found (exit 3, these are not pass-through), with the
	// sandbox's contexts for the next step (the root words it).
	streams, err = fk.contexts(t, output.Table, "restart", fk.id, cx)
	if e := abxerr.From(err); abxerr.Exit(err, false) != abxerr.ExitNotFound || e.Next != abxerr.StepContexts || e.Subject != fk.id {
		t.Errorf("restart of a deleted context: exit %d, %q (next %q %q)", abxerr.Exit(err, false), e.Message, e.Next, e.Subject)
	}
	if streams.Out.String() != "" || streams.ErrOut.String() != "" {
		t.Errorf("a failure printed %q / %q: the root prints the error", streams.Out.String(), streams.ErrOut.String())
	}
}

// TestFakeContextsNotes: restart and delete say what they did on stderr
// for people, and print nothing on stdout.
func TestFakeContextsNotes(t *testing.T) {
	t.Parallel()
	fk := newFake(t)
	streams, err := fk.contexts(t, output.JSON, "create", fk.id)
	var x codeinterp.Context
	if err != nil || json.Unmarshal(streams.Out.Bytes(), &x) != nil || x.ID == "" || x.Language != "python" || streams.ErrOut.String() != "" {
		t.Fatalf("create -o json: %v\n%s\nstderr %q", err, streams.Out.String(), streams.ErrOut.String())
	}
	for _, tc := range []struct {
		verb, done string
		format     output.Format
	}{
		{verb: "restart", done: "restarted", format: output.Table},
		{verb: "delete", done: "deleted", format: output.Wide},
	} {
		streams, err := fk.contexts(t, tc.format, tc.verb, fk.id, x.ID)
		if err != nil {
			t.Fatal(err)
		}
		if streams.Out.String() != "" || streams.ErrOut.String() != "context "+x.ID+" "+tc.done+"\n" {
			t.Errorf("%s: stdout %q, stderr %q", tc.verb, streams.Out.String(), streams.ErrOut.String())
		}
	}
}
