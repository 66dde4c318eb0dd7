package cli

import (
	"context"
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// EnvdClient reads the sandbox (GET, no side effects) and returns an envd
// client for it, as user ("" for envd's default).
func (f *Factory) EnvdClient(ctx context.Context, id, user string) (*envd.Client, error) {
	ep, err := f.endpoint(ctx, id, 0, provider.ExecRun)
	if err != nil {
		return nil, err
	}
	return envd.New(f.HTTPClient(), envd.Endpoint{URL: ep.URL, Header: ep.Header, Version: ep.EnvdVersion, Timeout: ep.RequestTimeout}, user), nil
}

// InterpreterClient reads the sandbox (GET, no side effects) and returns a
// client of its code interpreter.
func (f *Factory) InterpreterClient(ctx context.Context, id string) (*codeinterp.Client, error) {
	ep, err := f.endpoint(ctx, id, codeinterp.Port, provider.CodeInterpret)
	if err != nil {
		return nil, err
	}
	return codeinterp.New(f.HTTPClient(), codeinterp.Endpoint{URL: ep.URL, Header: ep.Header, Timeout: ep.RequestTimeout}), nil
}

// endpoint asks the provider's data plane for a port of the sandbox; a
// provider without one cannot offer the capability.
func (f *Factory) endpoint(ctx context.Context, id string, port int, c provider.Capability) (*provider.Endpoint, error) {
	p, err := f.Provider()
	if err != nil {
		return nil, err
	}
	dp, ok := p.(provider.DataPlane)
	if !ok {
		return nil, abxerr.NewUnsupported(f.Descriptor.Name, string(c))
	}
	return dp.Endpoint(ctx, id, port)
}

// streamData is the JSON of a chunk of output: text when it is UTF-8,
// base64 otherwise, so that any bytes survive a JSON reader.
type streamData struct {
	Type       string `json:"type"`
	Data       string `json:"data,omitempty"`
	DataBase64 []byte `json:"dataBase64,omitempty"`
}

func newStreamData(kind string, b []byte) streamData {
	if utf8.Valid(b) {
		return streamData{Type: kind, Data: string(b)}
	}
	return streamData{Type: kind, DataBase64: b}
}

// writeOutput copies a process's output event to abx's own streams, or as a
// JSON Lines event on stdout; other events are left to the caller.
func writeOutput(io *output.Streams, asJSON bool, ev envd.Event) error {
	switch {
	case ev.Stdout != nil:
		if asJSON {
			return output.WriteJSONLine(io.Out, newStreamData("stdout", ev.Stdout))
		}
		_, err := io.Out.Write(ev.Stdout)
		return err
	case ev.Stderr != nil:
		if asJSON {
			return output.WriteJSONLine(io.Out, newStreamData("stderr", ev.Stderr))
		}
		_, err := io.ErrOut.Write(ev.Stderr)
		return err
	}
	return nil
}
