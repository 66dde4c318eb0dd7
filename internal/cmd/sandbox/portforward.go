package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/portforward"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// Forward is one LOCAL:REMOTE pair; Local 0 picks a free port.
type Forward struct {
	Local, Remote int
}

// PortForwardOptions are the inputs of `abx port-forward`.
type PortForwardOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service
	Transport func() http.RoundTripper
	// Redact takes abx's secrets out of the ports' answers.
	Redact func(string) string

	ID       string
	Address  string
	Forwards []Forward
}

type forwardResult struct {
	SandboxID string `json:"sandboxID"`
	Local     string `json:"local"`
	Remote    int    `json:"remote"`
	URL       string `json:"url"`
}

// portForwardNames are the names of `abx port-forward`, declared once: its command takes
// them, and its group's Verbs lists them.
var portForwardNames = cmdutil.Names{"port-forward"}

// NewCmdPortForward builds `abx port-forward`.
func NewCmdPortForward(f *cmdutil.Factory, runF func(context.Context, *PortForwardOptions) error) *cobra.Command {
	opts := &PortForwardOptions{Printer: f.Printer, Sandboxes: f.Sandboxes,
		Transport: func() http.RoundTripper { return f.HTTPClient().Transport },
		Redact:    func(s string) string { return f.IO.Secrets.Redact(s) }}
	cmd := &cobra.Command{
		Use:   portForwardNames.Use("ID [LOCAL:]REMOTE..."),
		Short: "Serve ports of a sandbox on this machine",
		Long: `Listen on LOCAL (on 127.0.0.1) for each [LOCAL:]REMOTE and forward every request to port
REMOTE of the sandbox, through the gateway with the provider's URL rule and headers:
HTTP, server streams and upgraded connections (WebSocket) alike. LOCAL defaults to REMOTE;
an empty LOCAL (:REMOTE) picks a free port. Ctrl-C stops it. A request the sandbox cannot
answer because it is paused or gone gets 502, and abx says which on stderr. On loopback it
serves this machine's clients only: a Host that is not a name of this machine, or a web
page of another origin, gets 403. The sandbox's servers get no access token of abx's.

envd's port (49983, or envd_port) and the code interpreter's (49999) are refused: they
run anything in the sandbox as any user, and a forward asks no credential of its
clients. SDK programs reach them through 'abx provider engine exec', which asks for a
token of its own; 'abx exec', 'abx files' and 'abx run-code' do the same from the
command line.`,
		Example: `  abx port-forward "$id" 8080
  abx port-forward "$id" 18080:8080 :5432
  abx port-forward "$id" 8000 -o json | jq -r '.[0].url'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) >= 2 {
				return nil
			}
			return cmdutil.ArgsError(cmd, args, 2, []string{"ID", "[LOCAL:]REMOTE..."})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			opts.Forwards = nil
			for _, a := range args[1:] {
				fw, err := parseForward(a)
				if err != nil {
					return err
				}
				if whose := wellKnownPrivileged[fw.Remote]; whose != "" {
					return privilegedError(fw.Remote, whose)
				}
				opts.Forwards = append(opts.Forwards, fw)
			}
			if ip := net.ParseIP(opts.Address); opts.Address != "localhost" && ip == nil {
				return abxerr.New(abxerr.InvalidInput, "invalid --address %q", opts.Address).
					WithHint("give an IP address of this machine, such as 127.0.0.1")
			}
			return cmdutil.Run(cmd, opts, runF, runPortForward)
		},
	}
	cmd.Flags().StringVar(&opts.Address, "address", "127.0.0.1", "address to listen on; anything but loopback exposes the ports to the network")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "sandbox.port")
}

// parseForward reads [LOCAL:]REMOTE: numbers, the REMOTE port's bounds
// being the operation's. LOCAL is a port of this machine, 1 to 65535 (an
// empty LOCAL picks a free one).
func parseForward(s string) (Forward, error) {
	local, remote, paired := strings.Cut(s, ":")
	if !paired {
		remote = local
	}
	r, err := strconv.Atoi(remote)
	if err != nil {
		return Forward{}, abxerr.New(abxerr.InvalidInput, "invalid port %q", remote).
			WithHint("give [LOCAL:]REMOTE, port numbers, such as 8080 or 18080:8080")
	}
	fw := Forward{Local: r, Remote: r}
	if paired {
		fw.Local = 0
		if local != "" {
			if fw.Local, err = strconv.Atoi(local); err != nil || fw.Local < 1 || fw.Local > 65535 {
				return Forward{}, abxerr.New(abxerr.InvalidInput, "invalid local port %q", local).
					WithHint("give a port of this machine, 1 to 65535, or leave LOCAL empty (:%s) for any free one", remote)
			}
		}
	}
	return fw, nil
}

func runPortForward(ctx context.Context, opts *PortForwardOptions) error {
	if ip := net.ParseIP(opts.Address); ip != nil && !ip.IsLoopback() {
		opts.Printer.Note("warning: listening on %s: anyone who reaches this machine reaches the sandbox's ports", opts.Address)
	}
	notice := &failureNotice{opts: opts, ctx: ctx}
	// One mark for every port this run forwards: a port that leads back to
	// one of its listeners (the emulator maps a sandbox's port N to this
	// machine's, so 'port-forward ID 8080' with nothing on 8080 inside does)
	// is answered 508 rather than forwarded round for ever.
	hop := loopback.NewHop()
	var servers []*http.Server
	defer func() {
		for _, srv := range servers {
			_ = srv.Close()
		}
	}()
	remote := make([]int, len(opts.Forwards))
	for i, f := range opts.Forwards {
		remote[i] = f.Remote
	}
	eps, err := opts.Sandboxes.Endpoint(ctx, opts.ID, remote...)
	if err != nil {
		return err
	}
	var out []forwardResult
	var names []string
	for i, f := range opts.Forwards {
		ep := eps[i]
		if ep.Privileged {
			// envd on a port of the configuration's (envd_port).
			return privilegedError(f.Remote, "envd's (envd_port)")
		}
		fw, err := portforward.New(ep, opts.Transport())
		if err != nil {
			return err
		}
		fw.OnFailure, fw.Hop, fw.Redact = notice.heard, hop, opts.Redact
		ln, err := net.Listen("tcp", net.JoinHostPort(opts.Address, strconv.Itoa(f.Local)))
		if err != nil {
			return abxerr.New(abxerr.InvalidInput, "cannot listen on %s: %v", net.JoinHostPort(opts.Address, strconv.Itoa(f.Local)), err).
				WithHint("pick another local port (LOCAL:%d, or :%d for any free one)", f.Remote, f.Remote)
		}
		srv := &http.Server{Handler: guard(opts.Address, fw), ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, srv)
		go func() { _ = srv.Serve(ln) }()
		addr := ln.Addr().String()
		out = append(out, forwardResult{SandboxID: opts.ID, Local: addr, Remote: f.Remote, URL: "http://" + addr})
		names = append(names, "http://"+addr)
	}
	err = opts.Printer.Print(out, names, func() error {
		for _, r := range out {
			if err := opts.Printer.Line(fmt.Sprintf("Forwarding from %s -> %d", r.Local, r.Remote)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(shutdown)
	}
	opts.Printer.Note("port-forward stopped")
	return nil
}

// wellKnownPrivileged are the ports whose servers run what they are asked
// in any sandbox, refused before anything is sent; the provider's endpoint
// says it of a port configured elsewhere (envd_port).
var wellKnownPrivileged = map[int]string{provider.EnvdPort: "envd's", provider.CodeInterpreterPort: "the code interpreter's"}

// privilegedError refuses to forward a port that runs anything in the
// sandbox: its requests carry the sandbox's envd token, and port-forward
// asks no credential of its own, so every process of this machine (other
// users' and, on the emulator, sandboxes' code among them) could run
// anything there as anyone (docs/reliability.md, "Servers on this
// machine"). The engine is the door that asks a token.
func privilegedError(port int, whose string) error {
	return abxerr.New(abxerr.InvalidInput, "cannot forward port %d: it is %s, which runs anything in the sandbox as any user, "+
		"and a forward would let every process of this machine do so", port, whose).
		WithHint("SDK programs reach it through 'abx provider engine exec -- PROGRAM', which asks for a token of its own; " +
			"from the command line use 'abx exec', 'abx files' or 'abx run-code'")
}

// guard keeps a port forwarded on loopback for this machine's clients:
// a Host that is no name of this machine came by way of DNS rebinding,
// and an Origin of a page elsewhere from a browser on that page's behalf;
// both are answered 403 (docs/reliability.md, "Servers on this machine").
// A request without a Host (HTTP/1.0) names no other machine: browsers
// always send one, so it is taken as this machine's. On an address the
// user opened to the network, clients come by names abx cannot know.
func guard(address string, fw http.Handler) http.Handler {
	if ip := net.ParseIP(address); address != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fw
	}
	guarded := loopback.Names(nil).Guard(fw)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "" {
			r.Host = "localhost"
		}
		guarded.ServeHTTP(w, r)
	})
}

// failureNotice says, at most every few seconds, why the sandbox did not
// answer: it is paused or gone; a port nothing listens on says nothing.
type failureNotice struct {
	opts *PortForwardOptions
	ctx  context.Context
	mu   sync.Mutex
	last time.Time
}

func (n *failureNotice) heard(_ int, why error) {
	n.mu.Lock()
	if time.Since(n.last) < 5*time.Second {
		n.mu.Unlock()
		return
	}
	n.last = time.Now()
	n.mu.Unlock()
	var own *abxerr.Error
	if errors.As(why, &own) {
		// abx itself sent nothing (a traffic token it could not renew):
		// its words say why.
		n.opts.Printer.Note("%s", own.Message)
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, 10*time.Second)
	defer cancel()
	s, err := n.opts.Sandboxes.Get(ctx, n.opts.ID)
	switch {
	case err != nil && abxerr.From(err).Code == abxerr.NotFound:
		n.opts.Printer.Note("sandbox %s no longer exists: its ports answer 502", n.opts.ID)
	case err == nil && s.State == "paused":
		n.opts.Printer.Note("sandbox %s is paused: its ports answer 502 until 'abx resume %s'", n.opts.ID, n.opts.ID)
	}
}
