package mcpserver

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// clientTTL is how long the server keeps a sandbox's envd client: a tool
// call within it sends only its own requests, not first a read of the
// sandbox (its envd address, token and version), which an agent's calls
// one after another would pay each time. The endpoint does not change in a
// sandbox's life; the bound is for a sandbox killed or paused behind the
// server's back, whose calls then get the gateway's answer rather than the
// read's (not found) for at most this long.
const clientTTL = 30 * time.Second

// envdClients keeps the envd clients of the sandboxes the tools work in.
type envdClients struct {
	open func(ctx context.Context, id, user string) (*envd.Client, error)
	now  func() time.Time

	mu   sync.Mutex
	kept map[string]keptClient
}

type keptClient struct {
	c     *envd.Client
	until time.Time
}

// get returns the sandbox's client, kept or opened (and kept).
func (k *envdClients) get(ctx context.Context, id, user string) (*envd.Client, error) {
	key := id + "\x00" + user
	now := k.now()
	k.mu.Lock()
	kc, ok := k.kept[key]
	for key, kc := range k.kept { // a server lives long: no sandbox stays for ever
		if !now.Before(kc.until) {
			delete(k.kept, key)
		}
	}
	k.mu.Unlock()
	if ok && now.Before(kc.until) {
		return kc.c, nil
	}
	c, err := k.open(ctx, id, user)
	if err != nil {
		k.forget(id)
		return nil, resumeHint(err)
	}
	k.mu.Lock()
	if k.kept == nil {
		k.kept = map[string]keptClient{}
	}
	k.kept[key] = keptClient{c: c, until: now.Add(clientTTL)}
	k.mu.Unlock()
	return c, nil
}

// forget drops the sandbox's clients: it was killed, paused or resumed
// through the server, or a call through its client failed in a way a
// fresh read of the sandbox may explain or mend.
func (k *envdClients) forget(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for key := range k.kept {
		if strings.HasPrefix(key, id+"\x00") {
			delete(k.kept, key)
		}
	}
}

// resumeHint words a paused sandbox's error for an agent: the tool that
// resumes it, not a command line.
func resumeHint(err error) error {
	if e := abxerr.From(err); e.Code == abxerr.Paused {
		cp := *e
		cp.Hint = "resume it first with sandbox_resume"
		return &cp
	}
	return err
}
