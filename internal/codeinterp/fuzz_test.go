package codeinterp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// fuzzReply answers POST /execute with body, and anything else with 404.
type fuzzReply []byte

func (b fuzzReply) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	status, body := http.StatusOK, []byte(b)
	if req.Method != http.MethodPost || req.URL.Path != "/execute" {
		status, body = http.StatusNotFound, nil
	}
	return &http.Response{
		StatusCode: status,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-ndjson"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// wantExecute reads a reply the way Execute should: it succeeds when a
// line of at most maxLine bytes, every line before it readable too, is
// end_of_execution; the last line needs no newline.
func wantExecute(body []byte, maxLine int) bool {
	for len(body) > 0 {
		raw, rest, _ := bytes.Cut(body, []byte("\n"))
		body = rest
		if len(raw) > maxLine {
			return false
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l line
		if json.Unmarshal(raw, &l) != nil {
			return false
		}
		if l.Type == "end_of_execution" {
			return true
		}
	}
	return false
}

// FuzzExecute feeds arbitrary bytes to the reader of /execute replies,
// with a line limit lowered so that the fuzzer reaches it: no line may
// pass the limit, and the reply is taken exactly when it ends properly.
func FuzzExecute(f *testing.F) {
	f.Add([]byte(`{"type":"stdout","text":"hi\n"}`+"\n"+`{"type":"end_of_execution"}`+"\n"), uint16(64))
	f.Add([]byte(`{"type":"number_of_executions","execution_count":3}`+"\n\n"+`{"type":"end_of_execution"}`), uint16(64))
	f.Add([]byte(`{"type":"result","is_main_result":true,"text":"42","png":"iVBORw0KGgo=","extra":{"a":"b"}}`+"\n"+`{"type":"end_of_execution"}`), uint16(200))
	f.Add([]byte(`{"type":"stdout","text":"this line is longer than the limit"}`+"\n"+`{"type":"end_of_execution"}`+"\n"), uint16(20))
	f.Add([]byte(`{"type":"error","name":"E","value":"v","traceback":"t"}`+"\n"+`{"type":"stdout","te`), uint16(64))
	f.Add([]byte("not json\n"+`{"type":"end_of_execution"}`), uint16(64))
	f.Add([]byte(`{"type":"keepalive"}`+"\r\n"+`{"type":"end_of_execution"}`+"\r\n"), uint16(0))
	f.Add([]byte{}, uint16(16))
	f.Fuzz(func(t *testing.T, body []byte, limit uint16) {
		maxLine := int(limit)

		// readLine alone, with the smallest buffer bufio allows, so that
		// lines span several fragments.
		r := bufio.NewReaderSize(bytes.NewReader(body), 16)
		var read []byte
		for {
			raw, err := readLine(r, maxLine)
			if len(raw) > maxLine {
				t.Fatalf("readLine returned %d bytes, over the limit of %d", len(raw), maxLine)
			}
			if bytes.IndexByte(raw, '\n') >= 0 {
				t.Fatalf("readLine returned %q, which holds a newline", raw)
			}
			read = append(read, raw...)
			if errors.Is(err, errLineTooLong) {
				rest, _, _ := bytes.Cut(body[len(read):], []byte("\n"))
				if len(rest) <= maxLine {
					t.Fatalf("readLine refused a line of %d bytes with a limit of %d", len(rest), maxLine)
				}
				break
			}
			if err != nil {
				if !errors.Is(err, io.EOF) || !bytes.Equal(read, body) {
					t.Fatalf("readLine stopped with %v after %q of %q", err, read, body)
				}
				break
			}
			read = append(read, '\n')
			if !bytes.HasPrefix(body, read) {
				t.Fatalf("readLine read %q, which is not how %q begins", read, body)
			}
		}

		c := New(&http.Client{Transport: fuzzReply(body)}, Endpoint{URL: "http://code.test"})
		c.maxLine = maxLine
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		x := NewExecution()
		done := make(chan error, 1)
		go func() { done <- c.Execute(ctx, Request{Code: "1"}, x.Add) }()
		select {
		case err := <-done:
			if want := wantExecute(body, maxLine); (err == nil) != want {
				t.Fatalf("Execute = %v; a reply that ends properly: %v", err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Execute did not return within 10s of a 2s deadline")
		}
		for i := range x.Results {
			_ = x.Results[i].Formats()
		}
	})
}
