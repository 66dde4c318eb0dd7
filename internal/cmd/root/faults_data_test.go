//go:build unix

package root

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// What the service answers is checked before it is used: empty, null and
// malformed answers, answers without the fields abx needs, endless or
// repeated cursors and oversized bodies or messages are each a clear
// error (E5004, exit 1; 125 for exec) or a warning, never blank output, a
// loop or a memory blow-up.
func TestFaultsBadServerData(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	answer := func(method, path string, code int, body string) []faultproxy.Rule {
		return []faultproxy.Rule{{Method: method, Path: path, Fault: faultproxy.Status(code, body)}}
	}
	one, list := `^/kruise/api/sandboxes/`, `^/kruise/api/v2/sandboxes$`
	bad := `^error\[E5004\]: `
	cases := []faultCase{
		{name: "info empty body", args: []string{"info", "ID"}, rules: answer("GET", one, 200, ""), want: 1, wantErr: bad + ".*empty body"},
		{name: "info null", args: []string{"info", "ID"}, rules: answer("GET", one, 200, "null"), want: 1, wantErr: bad + ".*without a sandboxID"},
		{name: "info not JSON", args: []string{"info", "ID"}, rules: answer("GET", one, 200, "<html>"), want: 1, wantErr: bad + "cannot read the answer"},
		{name: "list of null", args: []string{"list"}, rules: answer("GET", list, 200, "[null]"), want: 1, wantErr: bad + ".*without a sandboxID"},
		{name: "list entry without ID", args: []string{"list"}, rules: answer("GET", list, 200, `[{"templateID":"base"}]`), want: 1, wantErr: bad},
		{name: "create without ID", args: []string{"create", "--template", "base"},
			rules: answer("POST", `^/kruise/api/sandboxes$`, 201, `{"templateID":"base"}`), want: 1, wantErr: bad + ".*without a sandboxID.*abx list"},
		{name: "connect null", args: []string{"connect", "ID"}, rules: answer("POST", "/connect$", 200, "null"), want: 1, wantErr: bad},
		// Both huge answers are about their size, so abx's request
		// timeout is the hang guard's: reading megabytes through the
		// proxy under -race on a busy machine may take longer than the
		// default.
		{name: "huge API answer", args: []string{"list", "--request-timeout", "2m"},
			rules: []faultproxy.Rule{{Method: "GET", Path: list, Fault: faultproxy.Endless("application/json", "[", `{"sandboxID":"x"},`, "]", 12<<20)}},
			want:  1, wantErr: bad + ".*larger than 8 MiB"},
		{name: "exec message of 200 MB", args: []string{"exec", "ID", "--", "true"},
			rules: []faultproxy.Rule{{Path: startPath, Fault: hugeMessage("application/connect+proto", true)}}, want: 125, wantErr: bad + ".*larger than 32 MiB"},
		{name: "ListDir of 200 MB", args: []string{"files", "ls", "ID", "/", "--request-timeout", "2m"},
			rules: []faultproxy.Rule{{Path: envdPath + `filesystem\.Filesystem/ListDir$`, Fault: hugeMessage("application/proto", false)}}, want: 1, wantErr: bad + ".*larger than 32 MiB"},
	}
	runFaults(t, f, cases)
}

// hugeMessage answers a Connect call with a 200 MB message, streamed: in
// an envelope for a stream, as the body of a unary answer otherwise.
func hugeMessage(contentType string, envelope bool) faultproxy.Fault {
	return faultproxy.Func(func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		const size = 200 << 20
		if envelope {
			var prefix [5]byte
			binary.BigEndian.PutUint32(prefix[1:], size)
			_, _ = w.Write(prefix[:])
		}
		chunk := make([]byte, 64<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

// Cursors: one served again ends the list with a warning and each sandbox
// listed once (so 'kill --all' kills each once); fresh ones for ever end
// at the page cap, with a warning.
func TestFaultsPagination(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "")
	a, b := create(t, f.env), create(t, f.env)
	list := `^/kruise/api/v2/sandboxes$`
	sameCursor := faultproxy.Func(func(w http.ResponseWriter, r *http.Request, up http.Handler) {
		// Every page is the first one, served again.
		first := r.Clone(r.Context())
		q := first.URL.Query()
		q.Del("nextToken")
		first.URL.RawQuery = q.Encode()
		rec := httptest.NewRecorder()
		up.ServeHTTP(rec, first)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Next-Token", "again")
		_, _ = w.Write(rec.Body.Bytes())
	})
	runFault(t, f, faultCase{name: "repeated cursor", args: []string{"list", "-o", "name"},
		rules: []faultproxy.Rule{{Method: "GET", Path: list, Fault: sameCursor}},
		check: func(t *testing.T, f *faulty, r result) {
			if r.stdout != a+"\n"+b+"\n" {
				t.Errorf("stdout %q, want each sandbox once", r.stdout)
			}
			if !strings.Contains(r.stderr, "warning: the service repeated a page cursor") {
				t.Errorf("stderr %q", r.stderr)
			}
			if n := f.proxy.Count("GET", list); n != 2 {
				t.Errorf("%d pages read, want 2", n)
			}
		}})
	runFault(t, f, faultCase{name: "kill --all with a repeated cursor", args: []string{"kill", "--all", "--yes"},
		rules: []faultproxy.Rule{{Method: "GET", Path: list, Fault: sameCursor}},
		check: func(t *testing.T, f *faulty, r result) {
			if n := f.proxy.Count("DELETE", `^/kruise/api/sandboxes/`); n != 2 {
				t.Errorf("%d DELETEs for 2 sandboxes; stderr %q", n, r.stderr)
			}
		}})

	var cursor atomic.Int64
	// A thousand pages, each a request through the proxy: bounded, not
	// quick, on a loaded machine under -race.
	runFault(t, f, faultCase{name: "endless fresh cursors", args: []string{"list", "-o", "json"}, bound: 3 * guard,
		rules: []faultproxy.Rule{{Method: "GET", Path: list, Fault: faultproxy.Func(func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Next-Token", fmt.Sprint("c", cursor.Add(1)))
			_, _ = io.WriteString(w, "[]")
		})}},
		check: func(t *testing.T, f *faulty, r result) {
			if n := f.proxy.Count("GET", list); n != 1000 {
				t.Errorf("%d pages read, want the cap of 1000", n)
			}
			if r.stdout != "[]\n" || !strings.Contains(r.stderr, "warning: the service had more pages after 1000") {
				t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
			}
		}})
}

// An exit status no process can have is the service's failure, not a
// status to pass through (300 would become 44).
func TestFaultsImpossibleExitStatus(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	for _, code := range []int32{300, -7, 256} {
		runFault(t, f, faultCase{name: fmt.Sprint("exit ", code), args: []string{"exec", "ID", "--", "true"},
			rules: []faultproxy.Rule{{Path: startPath, Fault: startStream(
				&pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 42}}},
				&pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{ExitCode: code, Exited: true, Status: "exit status"}}},
			)}},
			want: 125, wantErr: fmt.Sprintf(`^error\[E5004\]: the sandbox reported exit status %d`, code)})
	}
}

// startStream answers process.Process/Start with events, as a Connect
// server stream in the proto codec.
func startStream(events ...*pb.ProcessEvent) faultproxy.Fault {
	return faultproxy.Func(func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/connect+proto")
		envelope := func(flags byte, msg []byte) {
			var prefix [5]byte
			prefix[0] = flags
			binary.BigEndian.PutUint32(prefix[1:], uint32(len(msg)))
			_, _ = w.Write(prefix[:])
			_, _ = w.Write(msg)
		}
		for _, ev := range events {
			raw, err := proto.Marshal(&pb.StartResponse{Event: ev})
			if err != nil {
				panic(err)
			}
			envelope(0, raw)
		}
		envelope(2, []byte("{}"))
	})
}

// A list answered null is an empty list (a Go server's empty slice); IDs
// listed that would change a URL's path are shown, escaped, but never sent.
func TestFaultsListAnswers(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "")
	list := `^/kruise/api/v2/sandboxes$`
	runFault(t, f, faultCase{name: "null list", args: []string{"list", "-o", "json"},
		rules: []faultproxy.Rule{{Method: "GET", Path: list, Fault: faultproxy.Status(200, "null")}},
		check: func(t *testing.T, _ *faulty, r result) {
			if r.stdout != "[]\n" {
				t.Errorf("stdout %q", r.stdout)
			}
		}})
	for _, id := range []string{"..", ".", "a/../../x"} {
		runFault(t, f, faultCase{name: "ID " + id, args: []string{"kill", "--all", "--yes"}, want: 1,
			wantErr: `E5004.*which abx will not send`,
			rules:   []faultproxy.Rule{{Method: "GET", Path: list, Fault: faultproxy.Status(200, fmt.Sprintf(`[{"sandboxID":%q}]`, id))}},
			check: func(t *testing.T, f *faulty, _ result) {
				if n := f.proxy.Count("DELETE", ""); n != 0 {
					t.Errorf("%d DELETEs sent", n)
				}
			}})
	}
}
