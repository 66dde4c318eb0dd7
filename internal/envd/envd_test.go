package envd

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
)

func TestVersionGates(t *testing.T) {
	cases := []struct {
		v    string
		want map[Version]bool
	}{
		{"0.2.10", map[Version]bool{StdinFlag: false, DefaultUser: false, CloseStdin: false, OctetUpload: false, Metadata: false}},
		{"v0.4.1", map[Version]bool{StdinFlag: true, DefaultUser: true, CloseStdin: false}},
		{"0.5.7", map[Version]bool{CloseStdin: true, OctetUpload: true, Metadata: false}},
		{"0.6.12-rc1", map[Version]bool{Metadata: true}},
		{"", map[Version]bool{StdinFlag: false}},
		{"garbage", map[Version]bool{DefaultUser: false}},
	}
	for _, tc := range cases {
		v := ParseVersion(tc.v)
		for gate, want := range tc.want {
			if got := v.AtLeast(gate); got != want {
				t.Errorf("%q (%s) at least %s = %v, want %v", tc.v, v, gate, got, want)
			}
		}
	}
}

func TestClientHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("X-API-Key", "must-not-pass")
	h.Set("E2b-Sandbox-Id", "sb")
	old := New(http.DefaultClient, Endpoint{URL: "http://x/", Header: h, Version: "0.2.10"}, "")
	if old.User != DefaultUserName {
		t.Errorf("0.2.10 has no default user: abx names %q", old.User)
	}
	sent := old.http.Transport.(*headerTransport).header
	if sent.Get("X-API-Key") != "" || sent.Get("E2b-Sandbox-Id") != "sb" || sent.Get("Authorization") != "Basic dXNlcjo=" ||
		sent.Get("User-Agent") != "abx" {
		t.Errorf("headers %v", sent)
	}
	newer := New(http.DefaultClient, Endpoint{URL: "http://x", Version: "0.6.0"}, "")
	if newer.User != "" || newer.http.Transport.(*headerTransport).header.Get("Authorization") != "" {
		t.Errorf("0.6.0 picks its own default user")
	}
}

func TestAsError(t *testing.T) {
	cases := []struct {
		code connect.Code
		want abxerr.Code
	}{
		{connect.CodeNotFound, abxerr.NotFound},
		{connect.CodeUnauthenticated, abxerr.Unauthorized},
		{connect.CodePermissionDenied, abxerr.Forbidden},
		{connect.CodeInvalidArgument, abxerr.Rejected},
		{connect.CodeAlreadyExists, abxerr.Rejected},
		{connect.CodeDeadlineExceeded, abxerr.Timeout},
		{connect.CodeUnavailable, abxerr.Network},
		{connect.CodeInternal, abxerr.Server},
	}
	for _, tc := range cases {
		err := AsError(connect.NewError(tc.code, errors.New("boom")))
		if e := abxerr.From(err); e.Code != tc.want || e.Message != "boom" {
			t.Errorf("%s: %s %q, want %s", tc.code, e.Code, e.Message, tc.want)
		}
	}
	if AsError(nil) != nil {
		t.Error("nil")
	}
}

func TestUnaryCallsHaveADeadline(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(release) // before Close, which waits for the handler
	c := New(ts.Client(), Endpoint{URL: ts.URL, Version: "0.2.10", Timeout: 50 * time.Millisecond}, "")
	_, err := c.Stat(context.Background(), "x")
	var e *abxerr.Error
	if !errors.As(AsError(err), &e) || e.Code != abxerr.Timeout {
		t.Fatalf("err = %v", err)
	}
}

// An entry's mode is its permission bits, whatever else a server packs in
// (Go's type bits: a directory's 0o755 arrives as 2147484141 from a
// server that sends os.FileMode whole); its type says what it is.
func TestEntryModeIsPermissionBits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode uint32
		want uint32
	}{{0o755, 0o755}, {0o755 | 1<<31, 0o755}, {0o644, 0o644}, {0o1777 | 1<<31 | 1<<20, 0o1777}} {
		if got := entryOf(&fspb.EntryInfo{Mode: tc.mode}).Mode; got != tc.want {
			t.Errorf("mode %d: %o, want %o", tc.mode, got, tc.want)
		}
	}
}
