package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/envd"
)

func TestEnvdClientsAreKeptForAWhile(t *testing.T) {
	now := time.Unix(1000, 0)
	opened := 0
	fail := false
	k := &envdClients{now: func() time.Time { return now }, open: func(_ context.Context, id, _ string) (*envd.Client, error) {
		if fail {
			return nil, errors.New("gone")
		}
		opened++
		return envd.New(http.DefaultClient, envd.Endpoint{URL: "http://127.0.0.1:1/" + id, Version: "0.2.10"}, ""), nil
	}}
	ctx := t.Context()
	a, _ := k.get(ctx, "sb-a", "")
	if b, _ := k.get(ctx, "sb-a", ""); b != a || opened != 1 {
		t.Fatalf("a second call opened again (%d)", opened)
	}
	if _, _ = k.get(ctx, "sb-a", "root"); opened != 2 {
		t.Errorf("another user shares the client (%d)", opened)
	}
	if _, _ = k.get(ctx, "sb-ab", ""); opened != 3 {
		t.Errorf("another sandbox shares the client (%d)", opened)
	}
	// Killed, paused or resumed through the server: opened again.
	k.forget("sb-a")
	if _, _ = k.get(ctx, "sb-a", ""); opened != 4 {
		t.Errorf("forget kept the client (%d)", opened)
	}
	if _, _ = k.get(ctx, "sb-ab", ""); opened != 4 {
		t.Errorf("forget of sb-a dropped sb-ab (%d)", opened)
	}
	// After the TTL: opened again, and a failure is the caller's.
	now = now.Add(clientTTL)
	fail = true
	if c, err := k.get(ctx, "sb-a", ""); err == nil || c != nil {
		t.Errorf("after the TTL: %v %v", c, err)
	}
}
