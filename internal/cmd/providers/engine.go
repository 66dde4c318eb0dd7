package providers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/engine"
	"github.com/abx-dev/abx/internal/localserver"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/runfile"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// tokenEnv names the engine's token when it must not change between starts.
const tokenEnv = "ABX_ENGINE_TOKEN"

// ServeOptions are what engine serve and engine exec share.
type ServeOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Debug     func() bool
	Sandboxes *sandboxes.Service
	Selected  func() (*provider.Descriptor, error)
	Transport func() http.RoundTripper

	Addr        string
	Token       string
	AllowRemote bool
	PublicPorts []int
	// Record is where serve records itself for `engine env`; "" for exec.
	Record string
}

func newServeOptions(f *cmdutil.Factory) *ServeOptions {
	return &ServeOptions{IO: f.IO, Printer: f.Printer, Debug: f.Debug, Sandboxes: f.Sandboxes, Selected: f.Selected,
		Transport: func() http.RoundTripper { return f.HTTPClient().Transport }}
}

func (o *ServeOptions) addFlags(c *cobra.Command, getenv func(string) string) {
	c.Flags().StringVar(&o.Addr, "addr", "127.0.0.1:0", "address to serve on (port 0 picks a free one)")
	c.Flags().StringVar(&o.Token, "token", "", "the token local clients present (default $"+tokenEnv+", or a new random one)")
	c.Flags().BoolVar(&o.AllowRemote, "allow-remote", false, "allow an --addr that is not loopback (anyone who reaches it reaches your sandboxes with the token)")
	c.Flags().IntSliceVar(&o.PublicPorts, "public-port", nil, "a sandbox port served without the token, such as a web app a browser opens (repeatable; never 49983 or 49999)")
	if o.Token == "" {
		o.Token = getenv(tokenEnv)
	}
}

// NewCmdEngine builds the `abx provider engine` group.
func NewCmdEngine(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "engine",
		Short: "Serve E2B's API on this machine for the configured provider",
		Long: `The local engine serves E2B's HTTP API on loopback for the configured provider, so
that the official E2B SDKs and tools reach its sandboxes through abx: sandboxes are
created, listed, paused and killed through the provider, and requests for a sandbox's
ports are forwarded to them. Clients present the engine's token; the provider's API key
and the sandboxes' access tokens never leave abx.`,
		Args: cmdutil.ExactArgs(),
	}
	cmd.AddCommand(NewCmdServe(f, nil), NewCmdEngineEnv(f, nil), NewCmdEngineExec(f, nil))
	return cmd
}

// check refuses bad flags before anything listens. A public port is a
// port of a sandbox, as the catalogue bounds them (sandbox.port), and
// never one the engine keeps private (engine.CheckPublicPort).
func (o *ServeOptions) check() error {
	port := sandboxes.Op("sandbox.port").Input("port")
	ctx := sandboxes.WithSpelling(context.Background(), sandboxes.Spelling{Names: map[string]string{"port": "--public-port"}, Quote: true})
	for _, p := range o.PublicPorts {
		if err := port.CheckNumber(ctx, int64(p)); err != nil {
			return err
		}
		if err := engine.CheckPublicPort(p); err != nil {
			return abxerr.New(abxerr.InvalidInput, "invalid --public-port: %s", err.Message).WithHint("%s", err.Hint)
		}
	}
	return nil
}

// local is how serve and exec run the engine (localserver.Local).
func (o *ServeOptions) local() localserver.Local {
	return localserver.Local{Name: "abx provider engine", Start: o.start, Serving: func(s localserver.Server) []string {
		e := s.(*engineServer)
		return []string{fmt.Sprintf("abx provider engine serving on %s for %s; Ctrl-C stops it", e.url, e.provider)}
	}}
}

// start opens the engine's address, builds the engine and serves it; with
// record, it records itself for `engine env`.
func (o *ServeOptions) start(record bool) (localserver.Server, error) {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "invalid --addr %q: %v", o.Addr, err)
	}
	ip := net.ParseIP(host)
	remote := host != "localhost" && (ip == nil || !ip.IsLoopback())
	if remote && !o.AllowRemote {
		return nil, abxerr.New(abxerr.InvalidInput, "--addr %s is not a loopback address", o.Addr).
			WithHint("the engine hands out your sandboxes: add --allow-remote if you mean it")
	}
	d, err := o.Selected()
	if err != nil {
		return nil, err
	}
	if err := o.Sandboxes.Ready(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot listen on %s: %v", o.Addr, err).
			WithHint("pick another --addr, or 127.0.0.1:0 for any free port")
	}
	token := o.Token
	if token == "" {
		token = newToken()
	} else if !e2bKeyShaped(token) {
		o.Printer.Warn("warning: the token is not of the form e2b_<hex digits>: the Python E2B SDK refuses such API keys (the JS SDK and the CLI take it)")
	}
	// Clients present it; an error or a --debug line must not show it.
	o.IO.Secrets.Add(token)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	origin := "http://" + ln.Addr().String()
	// Its answers carry what the provider and envd said, which may echo the
	// API key or a sandbox's tokens: the printers' redaction takes them
	// out (the key and every token the transport sends are known to it).
	opts := engine.Options{Sandboxes: o.Sandboxes.Keeping(engine.EndpointTTL), Transport: o.Transport(), Token: token,
		Domain: "localhost:" + port, PublicPorts: o.PublicPorts, AnyHost: remote, Secrets: o.IO.Secrets}
	if o.Debug() {
		opts.Log = o.IO.SafeErrOut()
	}
	s := &engineServer{url: origin, provider: d.Name,
		env: []string{"E2B_API_URL=" + origin, "E2B_SANDBOX_URL=" + origin, "E2B_API_KEY=" + token, "E2B_DOMAIN=localhost:" + port}}
	if record {
		rec := engineRecord{URL: origin, PID: os.Getpid(), Provider: d.Name, Env: s.env}
		if err := runfile.Write(o.Record, rec); err != nil {
			_ = ln.Close()
			return nil, abxerr.New(abxerr.InvalidConfig, "cannot record the engine in %s: %v", o.Record, err)
		}
		s.record = o.Record
	}
	s.serve(ln, engine.New(opts))
	return s, nil
}

// engineServer is the engine serving on its address.
type engineServer struct {
	url, provider string
	env           []string
	record        string // where it is recorded; "" for none
	srv           *http.Server
	served        chan struct{} // closed when srv stops serving
	serveErr      error         // why, once served is closed
	closeOnce     sync.Once
	closeErr      error
}

func (s *engineServer) Env() []string { return s.env }

func (s *engineServer) serve(ln net.Listener, e *engine.Engine) {
	srv := e.Server()
	s.srv, s.served = srv, make(chan struct{})
	go func() { s.serveErr = srv.Serve(ln); close(s.served) }()
}

func (s *engineServer) Done() <-chan struct{} { return s.served }

// Close stops serving, once: requests have a moment to finish, then the
// rest (streams included) are ended cleanly. It forgets the record if it
// is still this engine's: another may have started since.
func (s *engineServer) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.stop() })
	return s.closeErr
}

func (s *engineServer) stop() error {
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(shutdown); err != nil {
		_ = s.srv.Close()
	}
	<-s.served
	err := s.serveErr
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if s.record != "" {
		var now engineRecord
		if runfile.Read(s.record, &now, func() bool { return true }) == nil && now.PID == os.Getpid() {
			_ = os.Remove(s.record)
		}
	}
	return err
}

// NewCmdServe builds `abx provider engine serve`.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := newServeOptions(f)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the engine until interrupted",
		Long: `Serve E2B's API on --addr (loopback) until Ctrl-C or SIGTERM. The export lines that point
E2B's SDKs and CLI at it go to stdout: E2B_API_URL and E2B_SANDBOX_URL (the engine's
origin), E2B_API_KEY (its token) and E2B_DOMAIN (-o json: one object); 'abx provider
engine env' prints them again from any shell.

Every request needs the engine's token (the SDKs send it), but for the ports of a
sandbox nobody guards, which are as public through the engine as the cluster makes
them; envd's and the code interpreter's always need it. --public-port lets a browser
reach one of every sandbox's own servers, such as a web app, without it. The engine
serves this machine's clients only: a Host that is not a name of this machine, or a web
page of another origin, gets 403.`,
		Example: `  abx provider engine serve                # then, in another shell, the lines it printed
  abx provider engine serve --addr 127.0.0.1:49980
  abx provider engine serve --public-port 3000   # a web app in a sandbox, for a browser`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			var err error
			if opts.Record, err = recordPath(f.Getenv); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runServe)
		},
	}
	opts.addFlags(cmd, f.Getenv)
	return cmdutil.Serves(cmd, "sandbox.create")
}

func runServe(ctx context.Context, opts *ServeOptions) error {
	return opts.local().Serve(ctx, opts.Printer)
}

// EngineExecOptions are the inputs of `abx provider engine exec`.
type EngineExecOptions struct {
	*ServeOptions
	Argv []string
}

// NewCmdEngineExec builds `abx provider engine exec -- CMD`.
func NewCmdEngineExec(f *cmdutil.Factory, runF func(context.Context, *EngineExecOptions) error) *cobra.Command {
	opts := &EngineExecOptions{ServeOptions: newServeOptions(f)}
	cmd := &cobra.Command{
		Use:   "exec [flags] -- CMD [ARG...]",
		Short: "Run a program against the engine, then stop it",
		Long: `Start the engine, run CMD with E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY and E2B_DOMAIN
pointing at it, stop the engine and exit with CMD's status (128+n if signal n ended it;
127 if CMD is not there, 126 if it cannot run, as a shell says). A Ctrl-C typed on the
terminal reaches CMD with abx; one or a SIGTERM sent to abx alone is passed on to CMD,
which is killed if it has not ended 5 s later. The engine's rules are serve's: its token on every request, --public-port for a
sandbox's web app.`,
		Example: `  abx provider engine exec -- node my-agent.mjs
  abx provider engine exec -- e2b sandbox list`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return abxerr.New(abxerr.Usage, "%s needs a command to run after --", cmd.CommandPath()).
					WithHint("for example: %s -- node agent.mjs", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			opts.Argv = args
			return cmdutil.Run(cmd, opts, runF, runEngineExec)
		},
	}
	opts.addFlags(cmd, f.Getenv)
	return cmdutil.NoJSON(cmdutil.PassThrough(cmdutil.Serves(cmd, "sandbox.create")))
}

func runEngineExec(ctx context.Context, opts *EngineExecOptions) error {
	return opts.local().Exec(ctx, opts.IO, opts.Argv)
}

// newToken is a random token shaped as an E2B API key, e2b_ and 40 hex
// digits: the Python SDK refuses keys of any other shape.
func newToken() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "e2b_" + hex.EncodeToString(b)
}

// e2bKeyShaped reports whether the Python SDK would take token as a key.
func e2bKeyShaped(token string) bool {
	digits, ok := strings.CutPrefix(strings.ToLower(token), "e2b_")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
