package traffictoken

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// jwt is an unsigned token with the claims a manager puts in one.
func jwt(iat, exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256"}`)) + "." +
		enc(fmt.Appendf(nil, `{"sub":"sbx","iat":%d,"exp":%d}`, iat.Unix(), exp.Unix())) + ".sig"
}

// clock is a fake time the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// manager answers refreshes with tokens of validity, or with err when set.
type manager struct {
	clk      *clock
	validity time.Duration
	calls    atomic.Int32
	err      atomic.Pointer[error]
	gate     chan struct{} // when set, each refresh waits for it
}

func (m *manager) refresh(ctx context.Context) (Token, error) {
	m.calls.Add(1)
	if m.gate != nil {
		select {
		case <-m.gate:
		case <-ctx.Done():
			return Token{}, ctx.Err()
		}
	}
	if e := m.err.Load(); e != nil {
		return Token{}, *e
	}
	now := m.clk.now().Truncate(time.Second)
	exp := now.Add(m.validity)
	return Parse(jwt(now, exp), exp.UTC().Format(time.RFC3339))
}

func (m *manager) fail(err error) { m.err.Store(&err) }

func start() *clock { return &clock{t: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)} }

func newSource(t *testing.T, c *clock, m *manager, first Token) *Source {
	t.Helper()
	return New("sbx", first, m.refresh, Options{Now: c.now, Rand: func() float64 { return 0 }})
}

// seeded is a source started with a token the manager gave, on a clock
// of its own, the manager's refreshes counted from there.
func seeded(t *testing.T, validity time.Duration) (*clock, *manager, *Source, Token) {
	t.Helper()
	c := start()
	m := &manager{clk: c, validity: validity}
	first, _ := m.refresh(context.Background())
	m.calls.Store(0)
	return c, m, newSource(t, c, m, first), first
}

// waitRefreshed waits for a refresh started behind a Get to land.
func waitRefreshed(t *testing.T, s *Source) {
	t.Helper()
	s.mu.Lock()
	f := s.flight
	s.mu.Unlock()
	if f != nil {
		select {
		case <-f.done:
		case <-time.After(2 * time.Minute): // a hang guard
			t.Fatal("the refresh never ended")
		}
	}
}

func TestNoTokenRefreshesBeforeTheFirstRequest(t *testing.T) {
	c := start()
	m := &manager{clk: c, validity: 10 * time.Minute}
	s := newSource(t, c, m, Token{})
	got, err := s.Get(context.Background())
	if err != nil || got == "" || m.calls.Load() != 1 {
		t.Fatalf("Get = %q, %v after %d refreshes; want a token after 1", got, err, m.calls.Load())
	}
	again, _ := s.Get(context.Background())
	if again != got || m.calls.Load() != 1 {
		t.Errorf("a second Get refreshed again (%d refreshes) or changed the token", m.calls.Load())
	}
}

func TestRenewsAheadOfExpiryWithoutDelayingRequests(t *testing.T) {
	c, m, s, first := seeded(t, 10*time.Minute)

	// 10 minutes' validity: renewed 2 minutes ahead (a fifth).
	c.add(7*time.Minute + 59*time.Second)
	if got, _ := s.Get(context.Background()); got != first.Value || m.calls.Load() != 0 {
		t.Fatalf("before the renewal window: %d refreshes", m.calls.Load())
	}
	c.add(2 * time.Second)
	m.gate = make(chan struct{})
	got, err := s.Get(context.Background()) // the refresh waits at the gate: the old token serves
	if err != nil || got != first.Value {
		t.Fatalf("inside the window Get = %q, %v; want the old token at once", got, err)
	}
	close(m.gate)
	waitRefreshed(t, s)
	renewed, _ := s.Get(context.Background())
	if renewed == first.Value || m.calls.Load() != 1 {
		t.Errorf("after the refresh: same token, %d refreshes; want a new one from 1", m.calls.Load())
	}
}

func TestConcurrentRequestsShareOneRefresh(t *testing.T) {
	c := start()
	m := &manager{clk: c, validity: 10 * time.Minute, gate: make(chan struct{})}
	s := newSource(t, c, m, Token{})
	var wg sync.WaitGroup
	tokens := make([]string, 20)
	for i := range tokens {
		wg.Go(func() {
			tok, err := s.Get(context.Background())
			if err != nil {
				t.Error(err)
			}
			tokens[i] = tok
		})
	}
	for m.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(m.gate)
	wg.Wait()
	if m.calls.Load() != 1 {
		t.Errorf("%d refreshes for 20 requests at once, want 1", m.calls.Load())
	}
	for _, tok := range tokens {
		if tok != tokens[0] || tok == "" {
			t.Fatalf("requests got different tokens: %q", tokens)
		}
	}
}

func TestAFailedRefreshKeepsTheValidTokenThenSaysItExpired(t *testing.T) {
	c, m, s, first := seeded(t, 10*time.Minute)
	m.fail(&abxerr.Error{Code: abxerr.Server, Status: 503, Message: "Traffic access token issuer is unavailable"})

	c.add(9 * time.Minute)
	if got, err := s.Get(context.Background()); err != nil || got != first.Value {
		t.Fatalf("in the window, refresh failing: %q, %v; want the old token", got, err)
	}
	waitRefreshed(t, s)
	// Backing off: no new refresh for a second.
	if got, err := s.Get(context.Background()); err != nil || got != first.Value || m.calls.Load() != 1 {
		t.Fatalf("backing off: %q, %v, %d refreshes", got, err, m.calls.Load())
	}
	c.add(61 * time.Second) // past expiry
	got, err := s.Get(context.Background())
	if got != "" || err == nil {
		t.Fatalf("past expiry, refresh failing: %q, %v; want no token and an error", got, err)
	}
	e := abxerr.From(err)
	if e.Code != abxerr.Server || !strings.Contains(e.Message, "expired at 2026-12-07T12:10:00Z and could not be renewed") ||
		!strings.Contains(e.Message, "issuer is unavailable") || strings.Contains(e.Message, first.Value) {
		t.Errorf("error %s %q: want E5002 saying it expired and why, without the token", e.Code, e.Message)
	}
	if strings.Contains(e.Message, "\n") {
		t.Errorf("error of more than one line: %q", e.Message)
	}

	// The manager mends: the next try after the backoff gets a token.
	m.err.Store(nil)
	c.add(2 * time.Second)
	if got, err := s.Get(context.Background()); err != nil || got == "" || got == first.Value {
		t.Errorf("after the manager mended: %q, %v", got, err)
	}
}

func TestBackoffDoublesAndHonoursRetryAfter(t *testing.T) {
	c := start()
	m := &manager{clk: c, validity: 10 * time.Minute}
	s := newSource(t, c, m, Token{})
	m.fail(&abxerr.Error{Code: abxerr.Rejected, Status: 429, Message: "too many", RetryAfter: 7 * time.Second})
	if _, err := s.Get(context.Background()); err == nil {
		t.Fatal("no token and the refresh refused: want an error")
	}
	c.add(6 * time.Second)
	_, _ = s.Get(context.Background())
	if m.calls.Load() != 1 {
		t.Fatalf("refreshed again %d times within Retry-After", m.calls.Load()-1)
	}
	m.fail(errors.New("connection refused"))
	c.add(2 * time.Second)
	_, _ = s.Get(context.Background())
	if m.calls.Load() != 2 {
		t.Fatalf("no refresh after Retry-After: %d", m.calls.Load())
	}
	// The backoff doubles from a second, whatever a Retry-After asked
	// once.
	s.mu.Lock()
	wait := s.retryAt.Sub(c.now())
	s.mu.Unlock()
	if wait != 2*time.Second {
		t.Errorf("next try in %v, want 2s", wait)
	}
}

func TestARefreshCancelledByItsRequestServesTheNextOne(t *testing.T) {
	c := start()
	m := &manager{clk: c, validity: 10 * time.Minute, gate: make(chan struct{})}
	s := newSource(t, c, m, Token{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := s.Get(ctx); done <- err }()
	for m.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Get: %v", err)
	}
	close(m.gate) // the refresh goes on for whoever asks next
	if got, err := s.Get(context.Background()); err != nil || got == "" || m.calls.Load() != 1 {
		t.Errorf("next Get: %q, %v, %d refreshes; want the refresh already under way", got, err, m.calls.Load())
	}
}

func TestOpaqueTokensAreUsedAsTheyAre(t *testing.T) {
	c := start()
	m := &manager{clk: c, validity: time.Minute}
	tok, err := Parse("8b6f7c1e-opaque", "")
	if err != nil {
		t.Fatal(err)
	}
	s := newSource(t, c, m, tok)
	c.add(1000 * time.Hour)
	if got, err := s.Get(context.Background()); err != nil || got != "8b6f7c1e-opaque" || m.calls.Load() != 0 {
		t.Errorf("opaque token: %q, %v, %d refreshes", got, err, m.calls.Load())
	}
}

func TestShortTokensAreRenewedHalfwayNotOnEveryRequest(t *testing.T) {
	c, m, s, _ := seeded(t, 4*time.Second)
	c.add(time.Second)
	_, _ = s.Get(context.Background())
	if m.calls.Load() != 0 {
		t.Errorf("a 4 s token refreshed 1 s into its life")
	}
	c.add(1500 * time.Millisecond)
	_, _ = s.Get(context.Background())
	waitRefreshed(t, s)
	if m.calls.Load() != 1 {
		t.Errorf("a 4 s token not refreshed past its half-life")
	}
}

func TestParseRefusesAnswersThatContradictThemselves(t *testing.T) {
	iat := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	good := jwt(iat, iat.Add(time.Hour))
	for _, tc := range []struct{ value, exp, want string }{
		{"", "", "no token"},
		{good, "tomorrow", "not an RFC 3339 time"},
		{good, iat.Add(2 * time.Hour).Format(time.RFC3339), "not the one the token itself states"},
	} {
		if _, err := Parse(tc.value, tc.exp); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.12q, %q) = %v, want %q", tc.value, tc.exp, err, tc.want)
		}
	}
	tok, err := Parse(good, iat.Add(time.Hour+2*time.Second).Format(time.RFC3339))
	if err != nil || !tok.Expires.Equal(iat.Add(time.Hour)) || !tok.Issued.Equal(iat) {
		t.Errorf("Parse(good) = %+v, %v", tok, err)
	}
	// Not a JWT: the answer's expiration is all there is.
	tok, err = Parse("opaque", iat.Format(time.RFC3339))
	if err != nil || !tok.Expires.Equal(iat) {
		t.Errorf("Parse(opaque) = %+v, %v", tok, err)
	}
}

func TestARefreshAnsweringAnExpiredTokenIsAFailure(t *testing.T) {
	c := start()
	s := New("sbx", Token{}, func(context.Context) (Token, error) {
		return Token{Value: "old", Expires: c.now().Add(-time.Second)}, nil
	}, Options{Now: c.now})
	_, err := s.Get(context.Background())
	if err == nil || !strings.Contains(err.Error(), "expired already") {
		t.Errorf("Get = %v, want the refresh's expired answer refused", err)
	}
}

// A token is not sent in the last tenth of its life (5 s at most): it
// could expire on its way. The request waits for the new one.
func TestATokenAboutToExpireIsNotSent(t *testing.T) {
	c, m, s, first := seeded(t, 10*time.Minute)
	c.add(10*time.Minute - 4*time.Second)
	got, err := s.Get(context.Background())
	if err != nil || got == first.Value || m.calls.Load() != 1 {
		t.Errorf("4 s before expiry: %q, %v after %d refreshes; want the new token", got, err, m.calls.Load())
	}
}
