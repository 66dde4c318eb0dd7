package alicloudcontainer

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// Snapshots against the fake, which answers as sandbox-manager's
// snapshot.go, list.go and templates.go do: the request's shapes (a JSON
// body, the options as extension headers, the clone's name as metadata),
// its statuses (201, 204 for a missing delete, 400 for a paused sandbox,
// 401 for a template's delete) and its pages.
func TestSnapshotsAgainstTheFake(t *testing.T) {
	c, srv := fakeClient(t)
	ctx := context.Background()
	s, err := c.Create(ctx, provider.CreateRequest{Template: "base"})
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetLog()
	keep := false
	snap, err := c.Snapshot(ctx, s.SandboxID, provider.SnapshotOptions{KeepRunning: &keep, TTL: 90 * time.Minute,
		Contents: []string{"filesystem"}, Wait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	h := func(k string) string { return strings.Join(req.Header.Values(k), ",") }
	if req.Method != http.MethodPost || req.Path != "/sandboxes/"+s.SandboxID+"/snapshots" || req.Body != "{}" ||
		h(e2bapi.HeaderSnapshotKeepRunning) != "false" || h(e2bapi.HeaderSnapshotTTL) != "1h30m0s" ||
		h(e2bapi.HeaderSnapshotContents) != "filesystem" || h(e2bapi.HeaderSnapshotWait) != "30" {
		t.Errorf("snapshot request %s %s %q %v", req.Method, req.Path, req.Body, req.Header)
	}
	if snap.SandboxID != s.SandboxID || !strings.HasPrefix(snap.SnapshotID, "snap-") || snap.Names == nil {
		t.Errorf("snapshot %+v", snap)
	}
	// Not kept running: the fake pauses it, and a paused one is refused.
	e := abxerr.From(func() error { _, err := c.Snapshot(ctx, s.SandboxID, provider.SnapshotOptions{}); return err }())
	if e.Status != http.StatusBadRequest || !strings.Contains(e.Message, "is not running") {
		t.Errorf("a paused sandbox's snapshot: %v", e)
	}
	// No option, no header.
	if err := c.Resume(ctx, s.SandboxID, 0); err != nil {
		t.Fatal(err)
	}
	srv.ResetLog()
	if _, err := c.Snapshot(ctx, s.SandboxID, provider.SnapshotOptions{}); err != nil {
		t.Fatal(err)
	}
	for k := range srv.Requests()[0].Header {
		if strings.HasPrefix(strings.ToLower(k), "x-e2b-kruise-") {
			t.Errorf("header %s sent without its option", k)
		}
	}

	// A clone, named: the name goes as the manager's metadata, which it
	// takes out of the sandbox's.
	srv.ResetLog()
	clone, err := c.Create(ctx, provider.CreateRequest{Template: snap.SnapshotID, Name: "attempt-1",
		Metadata: map[string]string{"owner": "me"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(srv.Requests()[0].Body, `"e2b.agents.kruise.io/sandbox-name":"attempt-1"`) ||
		clone.SandboxID != "default--attempt-1" || clone.TemplateID != snap.SnapshotID || clone.Metadata["owner"] != "me" {
		t.Errorf("clone %+v from %q", clone, srv.Requests()[0].Body)
	}
	if _, ok := clone.Metadata[e2bapi.MetadataSandboxName]; ok {
		t.Errorf("the name stayed in the metadata: %v", clone.Metadata)
	}

	// Pages of one, through X-Next-Token; by sandbox.
	for range 2 {
		if _, err := c.Snapshot(ctx, clone.SandboxID, provider.SnapshotOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	srv.ResetLog()
	all, err := c.Snapshots(ctx, provider.SnapshotListOptions{})
	if err != nil || len(all) != 4 {
		t.Fatalf("all snapshots: %v %v", all, err)
	}
	mine, err := c.Snapshots(ctx, provider.SnapshotListOptions{SandboxID: clone.SandboxID, Limit: 1})
	if err != nil || len(mine) != 1 {
		t.Fatalf("the clone's first snapshot: %v %v", mine, err)
	}
	if q := srv.Requests()[1].Query; !strings.Contains(q, "sandboxID="+clone.SandboxID) || !strings.Contains(q, "limit=1") {
		t.Errorf("list query %q", q)
	}

	// Deleted twice: 204 both times; a template's is refused.
	if err := c.DeleteSnapshot(ctx, snap.SnapshotID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSnapshot(ctx, snap.SnapshotID); err != nil {
		t.Fatalf("a second delete: %v", err)
	}
	if e := abxerr.From(c.DeleteSnapshot(ctx, "base")); e.Status != http.StatusUnauthorized {
		t.Errorf("a template's delete: %v", e)
	}
	if e := abxerr.From(c.DeleteSnapshot(ctx, "../sandboxes")); e.Code != abxerr.InvalidInput {
		t.Errorf("a path for an ID: %v", e)
	}
}

// A listing whose cursor comes back stops, as the sandboxes' does.
func TestSnapshotsStopOnARepeatedToken(t *testing.T) {
	calls := 0
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls++
		w.Header().Set("X-Next-Token", "same")
		_, _ = w.Write([]byte(`[{"snapshotID":"snap-a","names":null}]`))
	}))
	list, err := c.Snapshots(context.Background(), provider.SnapshotListOptions{})
	if err != nil || len(list) != 1 || calls != 2 {
		t.Fatalf("%v %v after %d calls", list, err, calls)
	}
}
