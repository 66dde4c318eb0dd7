package codeinterp

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
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
	benchReply(b, reply.Bytes(), nil)
}

// BenchmarkExecuteImage reads one result carrying a 16 MiB PNG in base64
// on one line, the largest kind of line run-code meets: held in the Result
// (Execute), and passed on as it is read (ExecuteSpooled, as run-code
// does), which should allocate next to nothing whatever the image.
func BenchmarkExecuteImage(b *testing.B) {
	reply := imageReply(16 << 20)
	b.Run("held", func(b *testing.B) { benchReply(b, reply, nil) })
	b.Run("spooled", func(b *testing.B) { benchReply(b, reply, discardSpool{}) })
}

// imageReply is a reply whose one result displays n bytes as a PNG, in
// the words of the code interpreter (json.dumps' spaces).
func imageReply(n int) []byte {
	png := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0, 1, 2, 0xfe, 0xff}, n/5+1)[:n])
	return []byte(`{"type": "number_of_executions", "execution_count": 3}` + "\n" +
		`{"type": "result", "text": "<Figure size 640x480>", "html": null, "png": "` + png + `", "extra": {}, "is_main_result": false}` + "\n" +
		`{"type": "end_of_execution"}` + "\n")
}

type discardSpool struct{}

func (discardSpool) Format(Format) io.Writer { return io.Discard }
func (discardSpool) Drop()                   {}

func benchReply(b *testing.B, reply []byte, spool Spool) {
	c := New(&http.Client{Transport: replyTransport(reply)}, Endpoint{URL: "http://interp"})
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, spool, func(Event) error { return nil }); err != nil {
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
