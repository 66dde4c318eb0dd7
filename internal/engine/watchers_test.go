//go:build unix

package engine_test

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// The polling watcher, the synchronous SDKs' only way to watch, through
// the engine as those SDKs call it: E2B_SANDBOX_URL as the base, the
// routing headers and the engine's token. (The JS SDK watches with the
// stream, which its own test drives.)
func TestThePollingWatcherThroughTheEngine(t *testing.T) {
	t.Parallel()
	fx := start(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	fs := filesystemconnect.NewFilesystemClient(http.DefaultClient, fx.url)
	req := func(r connect.AnyRequest) {
		h := r.Header()
		h.Set("E2b-Sandbox-Id", id)
		h.Set("E2b-Sandbox-Port", "49983")
		h.Set("X-Access-Token", token)
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("user:")))
	}
	mk := connect.NewRequest(&fspb.MakeDirRequest{Path: "/home/user/polled"})
	req(mk)
	if _, err := fs.MakeDir(t.Context(), mk); err != nil {
		t.Fatal(err)
	}
	create := connect.NewRequest(&fspb.CreateWatcherRequest{Path: "/home/user/polled"})
	req(create)
	w, err := fs.CreateWatcher(t.Context(), create)
	if err != nil {
		t.Fatal(err)
	}
	status, body := fx.send(t, "POST", "/files?path=/home/user/polled/new.txt&username=user", map[string]string{
		"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "49983", "X-Access-Token": token,
		"Content-Type": "multipart/form-data; boundary=b"}, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"new.txt\"\r\n\r\nx\r\n--b--\r\n")
	if status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	var seen []string
	for deadline := time.Now().Add(30 * time.Second); !slices.Contains(seen, "EVENT_TYPE_CREATE new.txt") && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		get := connect.NewRequest(&fspb.GetWatcherEventsRequest{WatcherId: w.Msg.GetWatcherId()})
		req(get)
		res, err := fs.GetWatcherEvents(t.Context(), get)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Msg.GetEvents() {
			seen = append(seen, e.GetType().String()+" "+e.GetName())
		}
	}
	if !slices.Contains(seen, "EVENT_TYPE_CREATE new.txt") {
		t.Fatalf("events %q", seen)
	}
	remove := connect.NewRequest(&fspb.RemoveWatcherRequest{WatcherId: w.Msg.GetWatcherId()})
	req(remove)
	if _, err := fs.RemoveWatcher(t.Context(), remove); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.Msg.GetWatcherId(), "w") {
		t.Errorf("watcher ID %q", w.Msg.GetWatcherId())
	}
}
