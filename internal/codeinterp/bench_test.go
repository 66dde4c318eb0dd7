package codeinterp

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkExecuteStdout reads a reply of 8 MiB of printed lines: the rate
// at which run-code passes output through.
func BenchmarkExecuteStdout(b *testing.B) {
	var reply bytes.Buffer
	line := `{"type":"stdout","text":"` + strings.Repeat("x", 1000) + `\n","timestamp":"2026-01-02T15:04:05.000001Z"}` + "\n"
	for reply.Len() < 8<<20 {
		reply.WriteString(line)
	}
	reply.WriteString(`{"type":"end_of_execution"}` + "\n")
	benchReply(b, reply.Bytes())
}

// BenchmarkExecuteImage reads one result carrying a 16 MiB PNG in base64
// on one line: the largest kind of line run-code meets.
func BenchmarkExecuteImage(b *testing.B) {
	png := base64.StdEncoding.EncodeToString(make([]byte, 16<<20))
	reply := []byte(`{"type":"result","is_main_result":true,"png":"` + png + `"}` + "\n" + `{"type":"end_of_execution"}` + "\n")
	benchReply(b, reply)
}

func benchReply(b *testing.B, reply []byte) {
	c := New(&http.Client{Transport: replyTransport(reply)}, Endpoint{URL: "http://interp"})
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Execute(context.Background(), Request{Code: "x"}, func(Event) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// replyTransport answers every request with the same body, in memory, so
// the benchmark measures abx's reading, not a network.
type replyTransport []byte

func (t replyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Request: r,
		Body: readCloser{bytes.NewReader(t)}}, nil
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
