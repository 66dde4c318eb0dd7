package abxerr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// HTTPCode is the code of an unsuccessful HTTP status: the one table every
// client of a server uses. 401 is Unauthorized, 403 Forbidden, 404 NotFound,
// 5xx Server and anything else (405, 429, the other 4xx, an unexpected 2xx
// or 3xx) Rejected. A client with a rule of its own (a plain-text 404 that
// is a missing route, not a missing object) changes the code afterwards.
func HTTPCode(status int) Code {
	switch {
	case status == http.StatusUnauthorized:
		return Unauthorized
	case status == http.StatusForbidden:
		return Forbidden
	case status == http.StatusNotFound:
		return NotFound
	case status >= 500:
		return Server
	default:
		return Rejected
	}
}

// doorStatuses is the status abx's own server (the engine, in front of a
// provider) answers a code with: HTTPCode read backwards, from where a
// gateway stands. What is the provider's or abx's own failure (its key,
// its settings, a service that failed or answered garbage, a paused
// sandbox's servers) is a 502, which the E2B SDKs read as "not
// running", never as the client's fault.
var doorStatuses = map[Code]int{
	Usage:         http.StatusBadRequest,
	InvalidInput:  http.StatusBadRequest,
	Rejected:      http.StatusBadRequest,
	NotFound:      http.StatusNotFound,
	Forbidden:     http.StatusForbidden,
	Unsupported:   http.StatusNotImplemented,
	Paused:        http.StatusBadGateway,
	Unauthorized:  http.StatusBadGateway,
	MissingConfig: http.StatusBadGateway,
	InvalidConfig: http.StatusBadGateway,
	Network:       http.StatusBadGateway,
	Server:        http.StatusBadGateway,
	BadResponse:   http.StatusBadGateway,
	Timeout:       http.StatusGatewayTimeout,
}

// HTTPStatus is the status a server of abx's answers err with
// (docs/engine.md, "Errors"). A refusal keeps the status the service
// gave it: a 409 stays 409, a 429 stays 429, so that a client reads it
// as it would the service's own. Any other error, and a refusal the
// client raised afterwards from another status (a plain-text 404 that
// is a missing route), answers its code's status (doorStatuses), and a
// code that has none 500.
func HTTPStatus(err error) int {
	e := From(err)
	if e.Code == Rejected && e.Status >= 400 && e.Status < 500 && HTTPCode(e.Status) == Rejected {
		return e.Status
	}
	if s, ok := doorStatuses[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// FromHTTP is the error for a server's unsuccessful answer: the code from
// HTTPCode, Status set, and the message "<message> (HTTP <status>)", where
// message is made one line, cut as an error quotes (Cut), or the
// status's own text when it is empty. It has no hint: clients add the hints
// (and prefixes, request ids) that are their own.
func FromHTTP(status int, message string) *Error {
	msg := httpMessage(message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	e := &Error{Code: HTTPCode(status), Status: status}
	if msg == "" {
		e.Message = fmt.Sprintf("HTTP %d", status)
	} else {
		e.Message = fmt.Sprintf("%s (HTTP %d)", msg, status)
	}
	return e
}

// httpMessage makes a server's message one line (runs of spaces, tabs and
// line breaks become one space), cut as every text an error quotes.
func httpMessage(s string) string {
	return Cut(strings.Join(strings.Fields(s), " "))
}

// HTTPBody is what a server's error body says.
type HTTPBody struct {
	Message   string // the JSON "message", or else the body as text
	RequestID string // the JSON "request_id", if the body is a JSON object
	// JSON is true when the body's first JSON value is an object with a
	// message: the server's own answer, not a proxy's or router's text.
	JSON bool
}

// ParseHTTPBody reads an error body: the first JSON value when it is an
// object with a "message" (a failed upload can append a second value),
// or else the text. The message is given as it is; FromHTTP shortens it.
// A body that starts with another JSON value is the message whole, with
// the strings of that value decoded (decodedStrings): a secret the server
// echoed in it is then written as the secret is, for redaction to find.
func ParseHTTPBody(raw []byte) HTTPBody {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	if dec.Decode(&first) != nil {
		return HTTPBody{Message: strings.TrimSpace(string(raw))}
	}
	var env struct {
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(first, &env) // an array, a string or a message that is no string leave it empty
	if env.Message == "" {
		end := dec.InputOffset()
		text := append(decodedStrings(raw[:end]), raw[end:]...)
		return HTTPBody{Message: strings.TrimSpace(string(text)), RequestID: env.RequestID}
	}
	return HTTPBody{Message: env.Message, RequestID: env.RequestID, JSON: true}
}

// decodedStrings rewrites each string of the valid JSON value v with no
// escapes but those JSON needs (a quote, a backslash, controls): a server
// may write any character as \uXXXX, a slash as \/, and a secret so
// written would pass a redaction that looks for it as it is. The rest of
// v is left byte for byte.
func decodedStrings(v []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(v) && v[end] != '"' {
			if v[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(v) {
			break
		}
		var str string
		if json.Unmarshal(v[i:end+1], &str) == nil {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(str)
			out = append(out, v[last:i]...)
			out = append(out, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
			last = end + 1
		}
		i = end
	}
	return append(out, v[last:]...)
}
