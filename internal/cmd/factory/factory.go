// Package factory builds the Factory every command is given: the one
// place that knows the concrete wiring, which providers abx has and which
// HTTP client carries their requests, as gh's pkg/cmd/factory does. The
// Factory it returns is complete: its fields are never set afterwards, and
// each thing it makes is made on first use, once.
package factory

import (
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/secrets"
)

// Options say what kind of run the Factory serves.
type Options struct {
	// Completing is a shell asking for completions on Tab: its stderr is
	// discarded at best and the prompt at worst, so --debug traces
	// nothing, and its stdin is the terminal the user types in, so no
	// setting is read from it.
	Completing bool
}

// New returns a factory over these streams and this environment (nil:
// the process's), with every provider abx has.
func New(io *output.Streams, getenv func(string) string, opts Options) *cmdutil.Factory {
	if getenv == nil {
		getenv = os.Getenv
	}
	if io.Secrets == nil {
		io.Secrets = &secrets.Set{}
	}
	reg := provider.NewRegistry(alicloudcontainer.Descriptor())
	f := &cmdutil.Factory{
		IO:       io,
		Printer:  output.NewPrinter(io),
		Getenv:   getenv,
		Registry: reg,
		Flags:    globalFlags(reg),
	}
	w := &wiring{f: f, opts: opts}
	f.Debug = w.debug
	f.Profile = sync.OnceValues(w.profile)
	f.Selected = sync.OnceValues(w.selected)
	f.Settings = sync.OnceValues(w.settings)
	f.Provider = sync.OnceValues(w.provider)
	f.HTTPClient = sync.OnceValue(w.httpClient)
	f.Sandboxes = &sandboxes.Service{Descriptor: f.Selected, Provider: f.Provider, HTTPClient: f.HTTPClient,
		Learned: w.learned}
	return f
}

// globalFlags are the flags the Factory reads: which provider, whether to
// trace, and every provider's settings.
func globalFlags(reg *provider.Registry) *pflag.FlagSet {
	fs := pflag.NewFlagSet("abx", pflag.ContinueOnError)
	fs.String("provider", "", "sandbox provider (or ABX_PROVIDER): "+strings.Join(reg.Names(), ", "))
	fs.String("profile", "", "profile to use (or ABX_PROFILE; default: the current one, see 'abx profile list')")
	fs.Bool("debug", false, "trace each HTTP request and response on stderr, secrets redacted")
	cmdutil.AddProviderFlags(fs, reg)
	return fs
}

// wiring makes what the Factory hands out.
type wiring struct {
	f    *cmdutil.Factory
	opts Options
}

func (w *wiring) debug() bool {
	if w.opts.Completing {
		return false
	}
	on, _ := w.f.Flags.GetBool("debug")
	return on
}

func (w *wiring) selected() (*provider.Descriptor, error) {
	if _, err := w.f.Profile(); err != nil {
		return nil, err
	}
	return w.f.Registry.Lookup(w.f.ProviderName())
}

// settings binds the selected provider's settings, once, and makes their
// secrets known at once: even a setting refused later may be echoed.
func (w *wiring) settings() (*cmdutil.Settings, error) {
	d, err := w.f.Selected()
	if err != nil {
		return nil, err
	}
	p, err := w.f.Profile()
	if err != nil {
		return nil, err
	}
	if p != nil && p.Provider != d.Name {
		p = nil // a profile of another provider has nothing for this one
	}
	st, err := cmdutil.Bind(d, w.f.Flags, w.f.Getenv, w.layer(p))
	if st != nil {
		st.RegisterSecrets(w.f.IO.Secrets, w.f.Getenv)
	}
	return st, err
}

// errStdinSetting refuses a setting read from stdin while completing.
var errStdinSetting = abxerr.New(abxerr.InvalidConfig, "a setting is to be read from stdin, which a completion cannot read")

// provider checks the settings and opens the provider, before any request.
func (w *wiring) provider() (provider.Provider, error) {
	st, err := w.f.Settings()
	if err != nil {
		return nil, err
	}
	stdin := w.f.IO.In
	if w.opts.Completing {
		if st.ReadsStdin() {
			return nil, errStdinSetting
		}
		stdin = nil
	}
	cfg, err := st.Config(stdin)
	st.RegisterStdinSecret(w.f.IO.Secrets)
	if err != nil {
		return nil, err
	}
	if problems := cfg.Problems(); len(problems) > 0 {
		return nil, problems[0]
	}
	deps := provider.Deps{HTTP: w.f.HTTPClient(), Warn: w.f.IO.SafeErrOut()}
	if w.debug() {
		deps.Log = w.f.IO.SafeErrOut()
	}
	return st.Descriptor.Open(cfg, deps)
}

// httpClient is the one client every request goes through. Its --debug
// trace goes through the redacting writer, since a server may echo a secret
// in a header; and every credential it sends is registered first, so that
// the answer finds it known.
func (w *wiring) httpClient() *http.Client {
	var trace io.Writer
	if w.debug() {
		trace = w.f.IO.SafeErrOut()
	}
	c := httpclient.New(trace)
	c.Transport = &secretsTransport{next: c.Transport, secrets: w.f.IO.Secrets}
	return c
}
