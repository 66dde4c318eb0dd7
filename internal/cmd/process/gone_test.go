package process

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// reader is a provider whose Get answers as told; nothing else is called.
type reader struct {
	provider.Provider
	sb    *provider.Sandbox
	err   error
	asked *bool
}

func (r reader) Get(context.Context, string) (*provider.Sandbox, error) {
	*r.asked = true
	return r.sb, r.err
}

func TestSandboxEndedSaysWhy(t *testing.T) {
	t.Parallel()
	gone := reader{err: abxerr.New(abxerr.NotFound, "Sandbox route not found")}
	paused := reader{sb: &provider.Sandbox{State: provider.StatePaused}}
	running := reader{sb: &provider.Sandbox{State: "running"}}
	killed := &remoteproc.Exit{Code: 137, Status: "signal: killed"}
	lost := fmt.Errorf("%w: the connection closed", remoteproc.ErrCut)
	for _, tc := range []struct {
		name    string
		p       reader
		x       *remoteproc.Exit
		err     error
		note    bool
		code    abxerr.Code
		unasked bool // the sandbox must not be read
	}{
		{"killed with its sandbox", gone, killed, nil, true, "", false},
		{"killed in a running sandbox", running, killed, nil, false, "", false},
		{"exited", gone, &remoteproc.Exit{Code: 1}, nil, false, "", true},
		{"stream lost, sandbox gone", gone, nil, lost, false, abxerr.NotFound, false},
		{"stream lost, sandbox paused", paused, nil, lost, false, abxerr.Paused, false},
		{"stream lost, sandbox running", running, nil, lost, false, "", false},
		{"another failure", gone, nil, abxerr.New(abxerr.Unauthorized, "refused"), false, abxerr.Unauthorized, true},
	} {
		asked := false
		tc.p.asked = &asked
		note, err := sandboxEnded(t.Context(), cmdtest.Sandboxes(tc.p), "sb1", tc.x, tc.err)
		if (note != "") != tc.note {
			t.Errorf("%s: note %q", tc.name, note)
		}
		switch {
		case tc.code == "" && tc.err == nil && err != nil:
			t.Errorf("%s: error %v, want none", tc.name, err)
		case tc.code != "" && abxerr.From(err).Code != tc.code:
			t.Errorf("%s: error %v (%s), want %s", tc.name, err, abxerr.From(err).Code, tc.code)
		case tc.code == "" && tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%s: error %v, want it unchanged", tc.name, err)
		}
		if tc.unasked && asked {
			t.Errorf("%s: the sandbox was read", tc.name)
		}
	}
}
