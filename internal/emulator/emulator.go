// Package emulator is abx's embedded default: a sandbox-manager on one
// loopback origin, so the whole CLI works on one machine without a cluster,
// for first steps and for testing scripts.
package emulator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/abx-dev/abx/internal/emulator/manager"
)

// Options configure an emulator.
type Options struct {
	// Addr is the loopback address to listen on; port 0 picks a free one.
	Addr string
	// APIKey is the key clients must send; empty generates one.
	APIKey string
	// Templates are the names sandboxes can be created from.
	Templates []string
	// StateDir holds each sandbox's directory; empty uses a temporary one,
	// removed at Close.
	StateDir string
	// EnvdVersion is the envd version sandboxes imitate (default 0.2.10).
	EnvdVersion string
}

// Emulator is a running emulator.
type Emulator struct {
	APIKey  string
	URL     string // http://127.0.0.1:PORT
	Manager *manager.Server
	Gateway *Gateway
	srv     *http.Server
	done    chan error
	cleanup func()
}

// Start listens on a loopback address and serves until Close.
func Start(opts Options) (*Emulator, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("invalid address %q: %w", opts.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("address %q is not a loopback address: the emulator serves this machine only", opts.Addr)
	}
	if opts.APIKey == "" {
		opts.APIKey = "abx_emu_" + rand.Text()
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	dir, temp := opts.StateDir, false
	if dir == "" {
		if dir, err = os.MkdirTemp("", "abx-emulator-"); err != nil {
			_ = ln.Close()
			return nil, err
		}
		temp = true
	}
	m := manager.New(manager.Options{APIKey: opts.APIKey, Templates: opts.Templates})
	g := NewGateway(m, filepath.Join(dir, "sandboxes"), opts.EnvdVersion)
	e := &Emulator{
		APIKey:  opts.APIKey,
		URL:     "http://" + ln.Addr().String(),
		Manager: m,
		Gateway: g,
		srv:     &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second},
		done:    make(chan error, 1),
	}
	if temp {
		e.cleanup = func() { _ = os.RemoveAll(dir) }
	}
	go func() { e.done <- e.srv.Serve(ln) }()
	return e, nil
}

// Env is the environment that points abx at this emulator: the private
// protocol over its plain-HTTP origin.
func (e *Emulator) Env() []string {
	return []string{
		"ABX_PROVIDER=alicloud-container",
		"ABX_ALICLOUD_CONTAINER_PROTOCOL=private",
		"ABX_ALICLOUD_CONTAINER_BASE_URL=" + e.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_DOMAIN=",
		"ABX_ALICLOUD_CONTAINER_API_KEY=" + e.APIKey,
	}
}

// Close stops serving and waits for the server to finish.
func (e *Emulator) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	if serveErr := <-e.done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	e.Gateway.Close()
	if e.cleanup != nil {
		e.cleanup()
	}
	return err
}
