//go:build !race

package emulator

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/envd"
)

// A running emulator holds nothing per request past its answer: 10,000
// requests with 4 KiB headers that its servers refuse or do not know (no
// API key, a wrong envd token, a path the interpreter lacks) and 1,000
// commands leave its heap, after a collection, within 4 MiB of where it
// started. Before, every request's headers (and an API request's body)
// stayed in a log for ever: a local process, or code in a sandbox, could
// grow it without bound. (Not under the race detector, whose shadow
// memory makes heap figures mean nothing; not parallel, so that no other
// test's heap is counted.)
func TestTheEmulatorHoldsNothingPerRequest(t *testing.T) {
	e, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	id := createSandbox(t, e, `{"templateID":"code-interpreter"}`)
	var token string
	for _, s := range e.Manager.Sandboxes() {
		token = s.EnvdAccessToken
	}
	h := http.Header{}
	h.Set("X-Access-Token", token)
	cl := envd.New(&http.Client{}, envd.Endpoint{URL: e.URL + "/kruise/" + id + "/49983", Header: h, Version: "0.2.10"}, "user")
	run := func() {
		if _, err := cl.Start(context.Background(), envd.Command{Cmd: "/bin/sh", Args: []string{"-c", "true"}}, func(envd.Event) error { return nil }); err != nil {
			t.Error(err)
		}
	}
	pad := strings.Repeat("x", 4096)
	refused := []struct{ path, header string }{
		{"/kruise/api/sandboxes", "X-API-Key"},                                    // no key: 401
		{"/kruise/" + id + "/49983/filesystem.Filesystem/Stat", "X-Access-Token"}, // a wrong token: 401
		{"/kruise/" + id + "/49999/no-such-route", "X-Padding"},                   // the interpreter: 404
	}
	hc := &http.Client{}
	refuse := func(i int) {
		r := refused[i%len(refused)]
		req, _ := http.NewRequest("POST", e.URL+r.path, strings.NewReader("{}"))
		req.Header.Set(r.header, "wrong")
		req.Header.Set("X-Padding-Data", pad)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	// Warm: the connections, the kernel, the first allocations of each path.
	for i := range 60 {
		refuse(i)
	}
	for range 20 {
		run()
	}
	before := heap()
	for i := range 10000 {
		refuse(i)
	}
	// Eight at a time, as an agent's tool calls come: the figure is the
	// same, the wait shorter.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 125 {
				run()
			}
		})
	}
	wg.Wait()
	after := heap()
	t.Logf("heap %.1f MiB before, %.1f MiB after", float64(before)/(1<<20), float64(after)/(1<<20))
	if after > before+4<<20 {
		t.Errorf("the heap grew by %.1f MiB over 10,000 refused requests and 1,000 commands, want 4 MiB at most",
			float64(after-before)/(1<<20))
	}
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
