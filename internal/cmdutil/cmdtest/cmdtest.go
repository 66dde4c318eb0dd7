// Package cmdtest helps the command packages' tests, and links no
// provider: it runs one command's argv without the rest of the tree, and
// gives the operations over a test's own provider. The Factory abx builds,
// which links the providers abx has, is factorytest's
// (internal/cmd/factory/factorytest).
package cmdtest

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// Exec runs one command with argv as cobra would under the root, without
// the root's checks: what a TestNewCmdX needs to see how argv becomes
// Options, or which usage error it is.
func Exec(cmd *cobra.Command, argv ...string) error {
	if argv == nil {
		argv = []string{} // nil would make cobra read the test binary's own arguments
	}
	cmd.SetArgs(argv)
	cmd.SetIn(&bytes.Buffer{})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.ExecuteContext(context.Background())
}

// Sandboxes returns the sandbox operations over p, a test's provider,
// which declares every capability of the family: a test that wants one
// refused (E8004) says so with a descriptor of its own.
func Sandboxes(p provider.Provider) *sandboxes.Service {
	d := &provider.Descriptor{Name: "test"}
	for _, c := range provider.AllCapabilities {
		d.Capabilities = append(d.Capabilities, c.Name)
	}
	return &sandboxes.Service{
		Descriptor: func() (*provider.Descriptor, error) { return d, nil },
		Provider:   func() (provider.Provider, error) { return p, nil },
		HTTPClient: func() *http.Client { return http.DefaultClient },
	}
}
