package manager

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const guarded = `{"templateID":"base","metadata":{"` + JWTAuthKey + `":"true"}}`

// A sandbox created with the opt-in key gets a traffic token in the create
// answer alone, with its expiry; the refresh route gives a new one; a
// token passes until it expires, for its own sandbox only.
func TestTrafficTokensOfAGuardedSandbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.opts.TrafficTokenValidity = 5 * time.Minute
	status, body, _ := f.do("POST", "/kruise/api/sandboxes", guarded)
	var made struct {
		SandboxID, TrafficAccessToken, TrafficAccessTokenExpiration string
	}
	if err := json.Unmarshal([]byte(body), &made); status != 201 || err != nil || made.TrafficAccessToken == "" {
		t.Fatalf("create: %d %s", status, body)
	}
	if exp, err := time.Parse(time.RFC3339, made.TrafficAccessTokenExpiration); err != nil || !exp.Equal(f.now.Add(5*time.Minute)) {
		t.Errorf("expiration %q, want %s", made.TrafficAccessTokenExpiration, f.now.Add(5*time.Minute).Format(time.RFC3339))
	}
	id, first := made.SandboxID, made.TrafficAccessToken
	if _, b, _ := f.do("GET", "/kruise/api/sandboxes/"+id, ""); strings.Contains(b, "trafficAccessToken") {
		t.Errorf("a describe carries a token: %s", b)
	}
	if _, err := f.srv.CheckTrafficToken(id, first); err != nil {
		t.Errorf("the create's token: %v", err)
	}
	// A signature changed in its middle: its last character holds padding
	// bits, which a change there may leave out of the decoded bytes.
	mid := len(first) - 10
	flipped := first[:mid] + map[bool]string{true: "B", false: "A"}[first[mid] == 'A'] + first[mid+1:]
	for token, want := range map[string]error{"": ErrNoTrafficToken, "x.y.z": ErrBadTrafficToken,
		flipped: ErrBadTrafficToken} {
		if _, err := f.srv.CheckTrafficToken(id, token); !errors.Is(err, want) {
			t.Errorf("token %q: %v, want %v", token, err, want)
		}
	}

	f.advance(4 * time.Minute)
	status, body, _ = f.do("POST", "/kruise/api/sandboxes/"+id+"/traffic-access-token", "")
	var fresh struct{ TrafficAccessToken, TrafficAccessTokenExpiration string }
	if err := json.Unmarshal([]byte(body), &fresh); status != 200 || err != nil || fresh.TrafficAccessToken == first {
		t.Fatalf("refresh: %d %s", status, body)
	}
	if _, err := f.srv.CheckTrafficToken(id, first); err != nil {
		t.Errorf("the old token before its expiry: %v", err)
	}
	f.advance(2 * time.Minute)
	if _, err := f.srv.CheckTrafficToken(id, first); !errors.Is(err, ErrExpiredTrafficToken) {
		t.Errorf("the old token after its expiry: %v", err)
	}
	if _, err := f.srv.CheckTrafficToken(id, fresh.TrafficAccessToken); err != nil {
		t.Errorf("the refreshed token: %v", err)
	}
	other := f.create(guarded)
	if _, err := f.srv.CheckTrafficToken(other, fresh.TrafficAccessToken); !errors.Is(err, ErrBadTrafficToken) {
		t.Errorf("another sandbox's token: %v", err)
	}
}

// The refresh route's statuses, and where it is served.
func TestTrafficTokenRefreshStatuses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	open := f.create(`{"templateID":"base"}`)
	if _, err := f.srv.CheckTrafficToken(open, ""); err != nil {
		t.Errorf("a sandbox that did not opt in needs no token: %v", err)
	}
	for _, c := range []struct {
		path string
		want int
	}{
		{"/kruise/api/sandboxes/" + open + "/traffic-access-token", http.StatusConflict},
		{"/kruise/api/sandboxes/default--base-nosuch/traffic-access-token", http.StatusNotFound},
		{"/sandboxes/" + open + "/traffic-access-token", http.StatusNotFound}, // the private protocol's only
	} {
		if status, body, _ := f.do("POST", c.path, ""); status != c.want {
			t.Errorf("POST %s: %d %s, want %d", c.path, status, body, c.want)
		}
	}
}
