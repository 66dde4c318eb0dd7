// Package traffictoken keeps a guarded sandbox's traffic token fresh: the
// short-lived JWT its gateway asks of every request for any of its ports
// (docs/protocol.md, "Traffic tokens that expire").
//
// A Source is asked for the token at the start of each request, so that a
// stream cut and attached again, or the next call of a long session, gets
// one that is valid then. It renews the token ahead of its expiry, on the
// first request past that point, with one refresh however many requests
// ask at once; it keeps using the old token while that is valid if a
// refresh fails, backing off between tries; and it never hands out a
// token it knows has expired.
package traffictoken

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Token is a traffic token and what is known of its life.
type Token struct {
	Value string
	// Expires is when the gateway stops taking it; zero for a token not
	// known to expire (an opaque one, from a manager before tokens
	// expired), which is used as it is and never renewed.
	Expires time.Time
	// Issued is when it was signed, zero if it does not say.
	Issued time.Time
}

// Parse reads a token and its expiration as an answer carries them
// (expiration in RFC 3339, or ""). A JWT's own claims are read, not
// checked (the gateway checks them); when the answer's expiration and the
// JWT's disagree by more than a few seconds, the answer is refused: one
// of them is wrong, and abx would send an expired token or refresh for
// ever.
func Parse(value, expiration string) (Token, error) {
	if value == "" {
		return Token{}, errors.New("the answer holds no token")
	}
	t := Token{Value: value}
	exp, iat, isJWT := claims(value)
	if isJWT {
		t.Expires, t.Issued = exp, iat
	}
	if expiration == "" {
		return t, nil
	}
	at, err := time.Parse(time.RFC3339, expiration)
	if err != nil {
		return Token{}, errors.New("its expiration " + quote(expiration) + " is not an RFC 3339 time")
	}
	if isJWT && absDuration(at.Sub(exp)) > tolerance {
		return Token{}, errors.New("its expiration " + expiration + " is not the one the token itself states (" + exp.UTC().Format(time.RFC3339) + ")")
	}
	if !isJWT {
		t.Expires = at
	}
	return t, nil
}

// tolerance is how far an answer's expiration may be from its JWT's.
const tolerance = 5 * time.Second

// claims reads the exp and iat claims of a JWT without checking its
// signature; ok is false for anything that is not a JWT with an exp.
func claims(token string) (exp, iat time.Time, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return exp, iat, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return exp, iat, false
	}
	var c struct {
		Exp *float64 `json:"exp"`
		Iat *float64 `json:"iat"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Exp == nil || *c.Exp <= 0 || *c.Exp > maxUnix {
		return exp, iat, false
	}
	exp = unix(*c.Exp)
	if c.Iat != nil && *c.Iat > 0 && *c.Iat <= *c.Exp {
		iat = unix(*c.Iat)
	}
	return exp, iat, true
}

// maxUnix is the year 9999: past it a claim is not a time.
const maxUnix = 253402300799

func unix(s float64) time.Time {
	sec := int64(s)
	return time.Unix(sec, int64((s-float64(sec))*1e9)).UTC()
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
