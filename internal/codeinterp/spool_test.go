package codeinterp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// TestSpoolTakesFormats: the string formats of a result go to the Spool,
// unescaped, and the event lists them; text and JSON values are held.
func TestSpoolTakesFormats(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xff, 0, 0x80}, 1<<20)) // many buffer fills
	c := serve(t, reply(
		`{"type": "number_of_executions", "execution_count": 2}`,
		`{"type": "result", "text": "<Figure>", "html": null, "svg": "<svg>\u00e9\ud83d\ude00\"\\\/</svg>", "png": "`+png+`", "json": {"a": [1, "x"]}, "extra": {"text/x-thing": "v"}, "is_main_result": false}`,
		`{"type": "stdout", "text": "after\n"}`,
		`{"type": "end_of_execution"}`,
	))
	sp := &captureSpool{}
	var results []Result
	var stdout []string
	err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, sp, func(ev Event) error {
		switch {
		case ev.Result != nil:
			if strings.Join(ev.Result.Spooled, ",") != "svg,png" || ev.Result.PNG != "" || ev.Result.SVG != "" {
				t.Errorf("spooled %v, png %d bytes, svg %q", ev.Result.Spooled, len(ev.Result.PNG), ev.Result.SVG)
			}
			var names []string
			for _, f := range ev.Result.Formats() {
				names = append(names, f.Name)
				if f.Spooled != (f.Name == "png" || f.Name == "svg") || (f.Spooled && f.Data != "") {
					t.Errorf("format %+v", f)
				}
			}
			if strings.Join(names, ",") != "png,svg,json,text/x-thing" {
				t.Errorf("formats %v", names)
			}
			sp.fill(t, ev)
			results = append(results, *ev.Result)
		case ev.Stdout != nil:
			stdout = append(stdout, ev.Stdout.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || len(stdout) != 1 || stdout[0] != "after\n" {
		t.Fatalf("results %d, stdout %q", len(results), stdout)
	}
	r := results[0]
	if r.PNG != png || r.SVG != "<svg>é😀\"\\/</svg>" || r.Text != "<Figure>" || string(r.JSON) != `{"a": [1, "x"]}` || string(r.Extra["text/x-thing"]) != `"v"` {
		t.Errorf("result %q %q %s %v (png %d bytes)", r.Text, r.SVG, r.JSON, r.Extra, len(r.PNG))
	}
	if sp.drops != 0 {
		t.Errorf("%d drops", sp.drops)
	}
}

// TestSpooledStringsAsEncodingJSONReadsThem: escapes, surrogate pairs and
// their halves, invalid UTF-8, in held and spooled strings alike.
func TestSpooledStringsAsEncodingJSONReadsThem(t *testing.T) {
	for _, s := range []string{
		`plain`, `\"\\\/\b\f\n\r\t`, `\u0041\u00e9\u20ac\u2028\u2029\u0000`,
		`\ud83d\ude00`, `\uD83D\uDE00`, `\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\n`, `\ud83d\ud83d\ude00`, `\ude00\ud83d`,
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\xff\xfe", "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf",
		strings.Repeat("é€😀", 30000) + `\ud83d`, // characters cut by buffer fills
	} {
		body := `{"type":"result","text":"` + s + `","svg":"` + s + `"}` + "\n" + `{"type":"end_of_execution"}` + "\n"
		checkExecute(t, []byte(body), MaxHeld)
	}
}

// blockingReply writes lines and then waits for the client to go away,
// as a server in the middle of a run does.
func blockingReply(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// TestMalformedLinesFail: a line that cannot be read is an error as soon
// as it has arrived whole, not a wait for more, and what was spooled of it
// is dropped.
func TestMalformedLinesFail(t *testing.T) {
	for _, l := range []string{
		`{"type":"result","png":"iVBOR\u12"}`,
		`{"type":"result","png":"iVBOR\u`,
		`{"type":"result","png":"iVBOR\`,
		`{"type":"result","png":"iVBOR`,
		`{"type":"result","png":"iVBOR\x"}`,
		`{"type":"result","png":"iVBOR` + "\t" + `"}`,
		`{"type":"result","png":"iVBOR"} x`,
		`{"type":"result","png":"iVBOR",}`,
		`{"type":"result","png":"iVBOR" "svg":""}`,
		`{"type":"result","png":5}`,
		`{"type":"result","png":"iVBOR","json":{"a":}}`,
		`{"type":"result","png":"iVBOR","extra":[1]}`,
		`{"type":"result","png":"iVBOR","is_main_result":"yes"}`,
		`{"type":"result","png":"iVBOR","execution_count":1.5}`,
		`{"type":"result","png":"iVBOR","future":tru}`,
		`{"type":"result","png":"iVBOR","future":[1}`,
		`{"type":"result"` + "\xe2",
		`["type"]`,
		`{"type"`,
	} {
		c := serve(t, blockingReply(`{"type":"stdout","text":"before"}`, l))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		sp := &captureSpool{}
		var seen []string
		err := c.ExecuteSpooled(ctx, Request{Code: "x"}, sp, func(ev Event) error {
			if ev.Stdout != nil {
				seen = append(seen, ev.Stdout.Text)
			}
			return nil
		})
		cancel()
		if codeOf(t, err) != abxerr.BadResponse || !strings.Contains(err.Error(), "cannot read") {
			t.Errorf("%s: %v", l, err)
		}
		if len(seen) != 1 || len(sp.pending) != 0 {
			t.Errorf("%s: saw %q; left %v spooled", l, seen, sp.pending)
		}
		if strings.Contains(l, `"png":"iVBOR`) && sp.drops != 1 {
			t.Errorf("%s: %d drops, want 1", l, sp.drops)
		}
	}
}

// TestSpoolLimits: a line past MaxLine is refused and what was spooled of
// it dropped; spooled values do not count against what may be held.
func TestSpoolLimits(t *testing.T) {
	png := strings.Repeat("A", 200<<10)
	c := serve(t, reply(`{"type":"result","png":"`+png+`"}`, `{"type":"end_of_execution"}`))
	c.maxLine, c.maxHeld = 100<<10, 1<<10
	sp := &captureSpool{}
	err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, sp, func(Event) error {
		t.Error("an event of a line too long")
		return nil
	})
	if codeOf(t, err) != abxerr.BadResponse || !strings.Contains(err.Error(), "too long (the limit is 102400 bytes)") {
		t.Fatalf("err = %v", err)
	}
	if sp.drops != 1 || len(sp.pending) != 0 {
		t.Errorf("%d drops, %v left", sp.drops, sp.pending)
	}

	c.maxLine = 1 << 20
	x := NewExecution()
	if err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, &captureSpool{}, x.Add); err != nil || len(x.Results) != 1 {
		t.Fatalf("a spooled value counted as held: %v", err)
	}
	c = serve(t, reply(`{"type":"result","text":"`+png+`"}`, `{"type":"end_of_execution"}`))
	c.maxLine, c.maxHeld = 1<<20, 1<<10
	err = c.ExecuteSpooled(context.Background(), Request{Code: "x"}, &captureSpool{}, func(Event) error { return nil })
	if codeOf(t, err) != abxerr.BadResponse || !strings.Contains(err.Error(), "too long (the limit is 1024 bytes)") {
		t.Fatalf("held text: err = %v", err)
	}
}

func TestSpoolCutMidValue(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"type":"result","png":"iVBORw0KGgo`)
	})
	sp := &captureSpool{}
	err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, sp, func(Event) error { return nil })
	if !errors.Is(err, ErrCut) || sp.drops != 1 {
		t.Fatalf("err = %v after %d drops", err, sp.drops)
	}
}

// TestSpoolWriterErrorStops: the Spool's failure ends the run as is.
func TestSpoolWriterErrorStops(t *testing.T) {
	c := serve(t, reply(`{"type":"result","png":"iVBORw0KGgo="}`, `{"type":"end_of_execution"}`))
	full := errors.New("disk full")
	err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, failingSpool{full}, func(Event) error { return nil })
	if !errors.Is(err, full) {
		t.Fatalf("err = %v", err)
	}
}

type failingSpool struct{ err error }

func (s failingSpool) Format(Format) io.Writer { return s }
func (s failingSpool) Write([]byte) (int, error) {
	return 0, s.err
}
func (failingSpool) Drop() {}

// TestSpooledImageAllocatesLittle: reading a 16 MiB image (22 MB of
// base64) into a Spool allocates a small fraction of it, whatever its size.
func TestSpooledImageAllocatesLittle(t *testing.T) {
	reply := imageReply(16 << 20)
	c := New(&http.Client{Transport: replyTransport(reply)}, Endpoint{URL: "http://interp"})
	run := func() {
		if err := c.ExecuteSpooled(context.Background(), Request{Code: "x"}, discardSpool{}, func(Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	run() // warm
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(reply)/20) {
		t.Errorf("allocated %d bytes reading a reply of %d", got, len(reply))
	}
}

// TestHeldResultsAsBefore: without a Spool every value is held, as
// encoding/json reads the line.
func TestHeldResultsAsBefore(t *testing.T) {
	raw := `{"type": "result", "text": "t", "png": "iVBORw0KGgo=", "svg": null, "html": "", "markdown": "null", "json": null, "chart": {"x": 1}, "extra": {}, "is_main_result": true}`
	c := serve(t, reply(raw, `{"type":"end_of_execution"}`))
	x := NewExecution()
	if err := c.Execute(context.Background(), Request{Code: "x"}, x.Add); err != nil {
		t.Fatal(err)
	}
	var l line
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		t.Fatal(err)
	}
	want, _ := eventOf(&l)
	got, _ := json.Marshal(x.Results)
	wantJSON, _ := json.Marshal([]Result{*want.Result})
	if string(got) != string(wantJSON) || len(x.Results[0].Spooled) != 0 {
		t.Errorf("got  %s\nwant %s", got, wantJSON)
	}
}

// TestPlainWords: a word is taken whole only when none of its bytes needs
// a look of its own.
func TestPlainWords(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			b := []byte("abcdefghABCDEFGH")
			b[8+pos] = byte(c)
			special := c < ' ' || c >= 0x80 || c == '"' || c == '\\'
			if got := plainWords(b); (got == 16) == special || got < 8 {
				t.Errorf("byte %#x at %d: %d plain", c, 8+pos, got)
			}
		}
	}
}
