package manager

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// JWTAuthKey is the metadata key by which a sandbox opts in to a guarded
// data plane: created with it "true", it gets a traffic token that
// expires, and the gateway refuses every request for its ports without a
// valid one (docs/protocol.md, "Traffic tokens that expire").
const JWTAuthKey = e2bapi.TrafficAuthKey

// DefaultTrafficTokenValidity is sandbox-manager's default: about a
// hundred years, while clients learn to refresh.
const DefaultTrafficTokenValidity = 100 * 365 * 24 * time.Hour

// trafficClaims are what a traffic token says: the sandbox, and until when.
type trafficClaims struct {
	Subject  string `json:"sub"`
	IssuedAt int64  `json:"iat"`
	Expires  int64  `json:"exp"`
	ID       string `json:"jti"`
}

var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// issueLocked gives b a new traffic token, valid for the server's
// validity from now. The caller holds mu.
func (s *Server) issueLocked(b *Sandbox) {
	now := s.tokenNow()
	// A JWT's times are whole seconds: the expiry is rounded up, so that a
	// token lives its validity at least (rounded down, a token of a second
	// would live from nothing to a second).
	exp := now.Add(s.trafficValidity())
	if t := exp.Truncate(time.Second); !t.Equal(exp) {
		exp = t.Add(time.Second)
	}
	claims, _ := json.Marshal(trafficClaims{Subject: b.ID, IssuedAt: now.Unix(), Expires: exp.Unix(), ID: randomHex(8)})
	unsigned := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(claims)
	b.TrafficToken = unsigned + "." + s.sign(unsigned)
	b.TrafficTokenExpiry = exp.UTC()
}

func (s *Server) tokenNow() time.Time {
	if s.opts.TokenNow != nil {
		return s.opts.TokenNow()
	}
	return s.opts.Now()
}

func (s *Server) trafficValidity() time.Duration {
	if s.opts.TrafficTokenValidity > 0 {
		return s.opts.TrafficTokenValidity
	}
	return DefaultTrafficTokenValidity
}

func (s *Server) sign(unsigned string) string {
	m := hmac.New(sha256.New, s.signKey)
	m.Write([]byte(unsigned))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Errors of CheckTrafficToken, as the gateway tells them apart.
var (
	ErrNoTrafficToken      = errors.New("no traffic access token")
	ErrBadTrafficToken     = errors.New("invalid traffic access token")
	ErrExpiredTrafficToken = errors.New("expired traffic access token")
)

// CheckTrafficToken says whether a request for a port of sandbox id may
// pass with token, and whether the sandbox is guarded (the gateway then
// takes the token off the request). It passes always for a sandbox that
// did not opt in (or that the server does not know: the gateway says so
// itself); for a guarded one, only with a token this server signed for it
// that has not expired. Any such token passes, not only the newest: a
// client keeps using the old one while a refresh is under way.
func (s *Server) CheckTrafficToken(id, token string) (guarded bool, err error) {
	if !s.guarded(id) {
		return false, nil
	}
	return true, s.checkTrafficToken(id, token)
}

func (s *Server) checkTrafficToken(id, token string) error {
	if token == "" {
		return ErrNoTrafficToken
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != jwtHeader || !hmac.Equal([]byte(parts[2]), []byte(s.sign(parts[0]+"."+parts[1]))) {
		return ErrBadTrafficToken
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c trafficClaims
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Subject != id {
		return ErrBadTrafficToken
	}
	if !s.tokenNow().Before(time.Unix(c.Expires, 0)) {
		return ErrExpiredTrafficToken
	}
	return nil
}

// guarded says whether sandbox id opted in to traffic tokens.
func (s *Server) guarded(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.boxes[id]
	return b != nil && b.Guarded
}

// refreshTrafficToken serves POST /kruise/api/sandboxes/{id}/traffic-access-token:
// a new token for a sandbox that opted in, 409 for one that did not.
func (s *Server) refreshTrafficToken(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	s.mu.Lock()
	if !b.Guarded {
		s.mu.Unlock()
		writeError(w, r, http.StatusConflict, http.StatusConflict, "Sandbox cannot refresh its traffic access token")
		return
	}
	s.issueLocked(b)
	answer := e2bapi.TrafficAccessToken{TrafficAccessToken: b.TrafficToken,
		TrafficAccessTokenExpiration: b.TrafficTokenExpiry.Format(time.RFC3339)}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, answer)
}
