package abxerr

import (
	"errors"
	"strings"
	"testing"
)

func TestFromHTTP(t *testing.T) {
	long := strings.Repeat("é", 250)
	cases := []struct {
		name    string
		status  int
		message string
		code    Code
		want    string
	}{
		{"401", 401, "Invalid API Key", Unauthorized, "Invalid API Key (HTTP 401)"},
		{"403", 403, "quota exceeded", Forbidden, "quota exceeded (HTTP 403)"},
		{"404", 404, "Context x not found", NotFound, "Context x not found (HTTP 404)"},
		{"400", 400, "bad timeout", Rejected, "bad timeout (HTTP 400)"},
		{"405", 405, "", Rejected, "Method Not Allowed (HTTP 405)"},
		{"409", 409, "not paused", Rejected, "not paused (HTTP 409)"},
		{"429", 429, "", Rejected, "Too Many Requests (HTTP 429)"},
		{"unexpected 2xx", 204, "", Rejected, "No Content (HTTP 204)"},
		{"500", 500, "EOF", Server, "EOF (HTTP 500)"},
		{"502 empty", 502, "", Server, "Bad Gateway (HTTP 502)"},
		{"507", 507, "no space left on device", Server, "no space left on device (HTTP 507)"},
		{"unknown 5xx", 599, "", Server, "HTTP 599"},
		{"blank is empty", 503, " \n\t", Server, "Service Unavailable (HTTP 503)"},
		{"one line", 500, "  line one\n\tline two  \r\n", Server, "line one line two (HTTP 500)"},
		{"cut at 200", 500, strings.Repeat("x", 201), Server, strings.Repeat("x", 200) + "… (201 bytes) (HTTP 500)"},
		{"200 kept", 500, strings.Repeat("x", 200), Server, strings.Repeat("x", 200) + " (HTTP 500)"},
		{"cut by character", 500, long, Server, strings.Repeat("é", 200) + "… (500 bytes) (HTTP 500)"},
	}
	for _, tc := range cases {
		e := FromHTTP(tc.status, tc.message)
		if e.Code != tc.code || e.Status != tc.status || e.Message != tc.want || e.Hint != "" || e.RequestID != "" {
			t.Errorf("%s: %s %d %q hint %q, want %s %q", tc.name, e.Code, e.Status, e.Message, e.Hint, tc.code, tc.want)
		}
		if HTTPCode(tc.status) != tc.code {
			t.Errorf("%s: HTTPCode %s, want %s", tc.name, HTTPCode(tc.status), tc.code)
		}
	}
}

func TestParseHTTPBody(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want HTTPBody
	}{
		{"envelope", `{"code":404,"message":"Sandbox x not found","request_id":"r1"}`,
			HTTPBody{Message: "Sandbox x not found", RequestID: "r1", JSON: true}},
		{"envd", `{"code":400,"message":"path is a directory"}`, HTTPBody{Message: "path is a directory", JSON: true}},
		{"first value of two", `{"message":"upload failed"}{"message":"second"}`, HTTPBody{Message: "upload failed", JSON: true}},
		{"plain text", "404 page not found\n", HTTPBody{Message: "404 page not found"}},
		{"empty", "", HTTPBody{}},
		{"JSON without message", `{"code":500,"request_id":"r2"}`,
			HTTPBody{Message: `{"code":500,"request_id":"r2"}`, RequestID: "r2"}},
		{"JSON string", `"oops"`, HTTPBody{Message: `"oops"`}},
		// Escapes that could hide a secret from redaction are decoded: the
		// message holds each string as its text, escaped only where JSON
		// must be; what is outside the first value is left as it came.
		{"JSON without message, escaped", `{"error":"bad key sk\/live\u002bKey==1 \u003cb\u003e \"q\"","request_id":"r3"} tail \u002f`,
			HTTPBody{Message: `{"error":"bad key sk/live+Key==1 <b> \"q\"","request_id":"r3"} tail \u002f`, RequestID: "r3"}},
		{"JSON array", `["sk\/live",1, true ,null]`, HTTPBody{Message: `["sk/live",1, true ,null]`}},
		{"HTML", "<html>\n<body>bad gateway</body>\n</html>", HTTPBody{Message: "<html>\n<body>bad gateway</body>\n</html>"}},
	}
	for _, tc := range cases {
		if got := ParseHTTPBody([]byte(tc.raw)); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// HTTPStatus answers a refusal with the status the service gave it, and
// every other error with its code's: the one table of abx's server.
func TestHTTPStatus(t *testing.T) {
	routeMissing := FromHTTP(404, "404 page not found")
	routeMissing.Code = Rejected
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"409 stays", FromHTTP(409, "conflict"), 409},
		{"429 stays", FromHTTP(429, "slow down"), 429},
		{"400 stays", FromHTTP(400, "bad timeout"), 400},
		{"403", FromHTTP(403, "quota exceeded"), 403},
		{"404", FromHTTP(404, "no such sandbox"), 404},
		{"a refusal made of a missing route", routeMissing, 400},
		{"the provider's key", FromHTTP(401, "Invalid API Key"), 502},
		{"a failed service", FromHTTP(503, "busy"), 502},
		{"an answer abx cannot read", &Error{Code: BadResponse, Status: 200}, 502},
		{"a refusal of abx's own", New(Rejected, "no"), 400},
		{"bad input", New(InvalidInput, "bad"), 400},
		{"unsupported", NewUnsupported("p", "c"), 501},
		{"paused", New(Paused, "paused"), 502},
		{"a deadline", New(Timeout, "late"), 504},
		{"unforeseen", New(Internal, "boom"), 500},
		{"a plain error", errors.New("boom"), 500},
	} {
		if got := HTTPStatus(c.err); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
