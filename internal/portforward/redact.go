package portforward

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// maxErrorBody is how much of a privileged port's error answer is read to
// take the secrets out of it: envd's and the interpreter's errors are a
// line or two of JSON; the rest is cut.
const maxErrorBody = 64 << 10

// redactAnswer takes the secrets out of what a port answers before the
// client sees it (docs/security.md, "One redaction"). Every port's header
// values go through it: a server may echo a credential in any of them.
// The error answers of the ports that get the sandbox's token (envd, the
// code interpreter) have their bodies redacted too, since those servers
// echo what they were sent, a token among it; their successful answers
// (files, streams of output) and a sandbox application's bodies are the
// user's data and go through as they are.
func (fw *Forwarder) redactAnswer(resp *http.Response, privileged bool) error {
	if fw.Redact == nil {
		return nil
	}
	for k, vs := range resp.Header {
		for i, v := range vs {
			if r := fw.Redact(v); r != v {
				resp.Header[k][i] = r
			}
		}
	}
	if !privileged || resp.StatusCode < 400 || resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	var body []byte
	if resp.Header.Get("Content-Encoding") != "" {
		// A compressed body cannot be searched as it is; an error's words
		// are not worth the risk of passing one whole.
		body = []byte("abx: the port's error answer was compressed and is not shown\n")
		resp.Header.Del("Content-Encoding")
		resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil {
			return err
		}
		body = []byte(fw.Redact(string(b)))
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.TransferEncoding = nil
	return nil
}
