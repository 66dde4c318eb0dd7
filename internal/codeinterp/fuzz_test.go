package codeinterp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
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

// wantExecute reads a reply the way Execute should, a whole line at a
// time with encoding/json: the events it delivers, and whether it
// succeeds, which it does when a line of at most maxLine bytes, every line
// before it readable too, is end_of_execution; the last line needs no
// newline.
func wantExecute(body []byte, maxLine int) ([]Event, bool) {
	var evs []Event
	for len(body) > 0 {
		raw, rest, _ := bytes.Cut(body, []byte("\n"))
		body = rest
		if len(raw) > maxLine {
			return evs, false
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l line
		if json.Unmarshal(raw, &l) != nil {
			return evs, false
		}
		if l.Type == "end_of_execution" {
			return evs, true
		}
		if ev, ok := eventOf(&l); ok {
			evs = append(evs, ev)
		}
	}
	return evs, false
}

// captureSpool keeps the values a Spool is given, and puts them back into
// the results they belong to.
type captureSpool struct {
	pending map[string]*bytes.Buffer
	drops   int
}

func (s *captureSpool) Format(f Format) io.Writer {
	if s.pending == nil {
		s.pending = map[string]*bytes.Buffer{}
	}
	b := &bytes.Buffer{}
	s.pending[f.Name] = b
	return b
}

func (s *captureSpool) Drop() {
	clear(s.pending)
	s.drops++
}

// fill puts the spooled values of ev back into its result.
func (s *captureSpool) fill(t *testing.T, ev Event) {
	if ev.Result == nil {
		if len(s.pending) > 0 {
			t.Fatalf("values spooled for a line that was no result: %v", s.pending)
		}
		return
	}
	for _, name := range ev.Result.Spooled {
		b, ok := s.pending[name]
		if !ok {
			t.Fatalf("%s is spooled but the spool never had it", name)
		}
		ev.Result.SetFormat(name, b.String())
	}
	clear(s.pending)
}

// checkExecute runs Execute over body, with and without a Spool, and
// checks both against wantExecute: the same events, the same success.
func checkExecute(t *testing.T, body []byte, maxLine int) {
	want, ok := wantExecute(body, maxLine)
	for _, spooled := range []bool{false, true} {
		c := New(&http.Client{Transport: fuzzReply(body)}, Endpoint{URL: "http://code.test"})
		c.maxLine, c.maxHeld = maxLine, maxLine
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var got []Event
		sp := &captureSpool{}
		var spool Spool
		if spooled {
			spool = sp
		}
		done := make(chan error, 1)
		go func() {
			done <- c.ExecuteSpooled(ctx, Request{Code: "1"}, spool, func(ev Event) error {
				if spooled {
					sp.fill(t, ev)
				}
				got = append(got, ev)
				return nil
			})
		}()
		select {
		case err := <-done:
			if (err == nil) != ok {
				t.Fatalf("spooled=%v: Execute = %v; a reply that ends properly: %v", spooled, err, ok)
			}
		case <-time.After(2 * time.Minute): // a hang guard
			t.Fatalf("spooled=%v: Execute did not return within 2 minutes of a 2s deadline", spooled)
		}
		cancel()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("spooled=%v: events\n%s\nwant\n%s", spooled, dump(got), dump(want))
		}
		if len(sp.pending) > 0 {
			t.Fatalf("values spooled and neither delivered nor dropped: %v", sp.pending)
		}
		for _, ev := range got {
			if ev.Result != nil {
				_ = ev.Result.Formats()
			}
		}
	}
}

func dump(evs []Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "%+v", ev)
		if ev.Result != nil {
			fmt.Fprintf(&b, " %+v", *ev.Result)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// FuzzExecute feeds arbitrary bytes to the reader of /execute replies,
// with a line limit lowered so that the fuzzer reaches it: no line may
// pass the limit, and the reply is taken exactly when it ends properly,
// with the events encoding/json would give, spooled or not.
func FuzzExecute(f *testing.F) {
	f.Add([]byte(`{"type":"stdout","text":"hi\n"}`+"\n"+`{"type":"end_of_execution"}`+"\n"), uint16(64))
	f.Add([]byte(`{"type":"number_of_executions","execution_count":3}`+"\n\n"+`{"type":"end_of_execution"}`), uint16(64))
	f.Add([]byte(`{"type":"result","is_main_result":true,"text":"42","png":"iVBORw0KGgo=","extra":{"a":"b"}}`+"\n"+`{"type":"end_of_execution"}`), uint16(200))
	f.Add([]byte(`{"type": "result", "text": "<Figure>", "html": null, "svg": "<svg>\u00e9\ud83d\ude00\ud800x\/</svg>", "png": "null", "json": {"a": [1, 2.5, "x"]}, "extra": {}, "is_main_result": false}`+"\n"+`{"type":"end_of_execution"}`), uint16(300))
	f.Add([]byte(`{"TYPE":"result","PNG":"a","png":"b","png":null,"Svg":"\"x\"","type":"result"}`+"\n"+`{"type":"end_of_execution"}`), uint16(200))
	f.Add([]byte(`{"type":"result","svg":"caf\xc3\xa9 \xff\xe2\x82"}`+"\n"+`{"type":"end_of_execution"}`), uint16(200))
	f.Add([]byte(`{"type":"result","png":"abc`+"\n"+`{"type":"end_of_execution"}`), uint16(200))
	f.Add([]byte(`{"type":"stdout","text":"this line is longer than the limit"}`+"\n"+`{"type":"end_of_execution"}`+"\n"), uint16(20))
	f.Add([]byte(`{"type":"error","name":"E","value":"v","traceback":"t"}`+"\n"+`{"type":"stdout","te`), uint16(64))
	f.Add([]byte("not json\n"+`{"type":"end_of_execution"}`), uint16(64))
	f.Add([]byte("null\n \v \n"+`{"type":"end_of_execution"} x`), uint16(64))
	f.Add([]byte(`{"type":"keepalive"}`+"\r\n"+`{"type":"end_of_execution"}`+"\r\n"), uint16(0))
	f.Add([]byte{}, uint16(16))
	f.Fuzz(func(t *testing.T, body []byte, limit uint16) {
		checkExecute(t, body, int(limit))
	})
}

// FuzzString puts arbitrary bytes in a string of a result, where a Spool
// takes it as it is unescaped: it must come out as encoding/json reads it.
func FuzzString(f *testing.F) {
	for _, s := range []string{`plain`, `\"\\\/\b\f\n\r\t`, `\u00e9\u2028\ud83d\ude00`, `\ud83d`, `\ude00\ud83d\ud83d\ude00`,
		`\ud83dx`, `\ud83d\n`, "\xff\xe2\x82\xac\xe2\x82", `\u12`, `\x`, "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body := `{"type":"result","svg":"` + s + `"}` + "\n" + `{"type":"end_of_execution"}`
		checkExecute(t, []byte(body), 1<<20)
	})
}
