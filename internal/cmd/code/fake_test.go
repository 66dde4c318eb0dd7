//go:build unix

package code

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// fake is the fake cluster (cmdtest.FakeCluster), whose code-interpreter
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
	_, env := cmdtest.FakeCluster(t)
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
func (fk *fake) factory(t *testing.T, format output.Format) (*cmdutil.Factory, cmdtest.Streams) {
	t.Helper()
	f, streams := cmdtest.NewFactory(false, fk.env, format)
	if err := cmdtest.Select(f); err != nil {
		t.Fatal(err)
	}
	return f, streams
}

// run runs code in the fake's sandbox as run-code would, printing in
// format; the request's language is python unless req says otherwise.
func (fk *fake) run(t *testing.T, format output.Format, req codeinterp.Request, tweak ...func(*RunCodeOptions)) (cmdtest.Streams, error) {
	t.Helper()
	f, streams := fk.factory(t, format)
	if req.ContextID == "" && req.Language == "" {
		req.Language = "python"
	}
	opts := &RunCodeOptions{IO: f.IO, Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, Request: req}
	for _, tw := range tweak {
		tw(opts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := runRunCode(ctx, opts)
	return streams, err
}

// contexts gives the contexts commands' runners the fake's factory.
func (fk *fake) contexts(t *testing.T, format output.Format) (*cmdutil.Factory, cmdtest.Streams, context.Context) {
	t.Helper()
	f, streams := fk.factory(t, format)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return f, streams, ctx
}
