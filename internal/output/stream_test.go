package output

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

type rowEvent struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// printerIn is a printer over test streams in format f ("lines" for a
// verb's JSON Lines flag).
func printerIn(tty bool, f string) (*Printer, *bytes.Buffer, *bytes.Buffer) {
	s, _, out, errOut := Test(tty)
	p := NewPrinter(s)
	switch f {
	case "lines":
		p.AskJSONLines(true)
	case "bare":
		p.AskBareIDs("-q", true)
	default:
		if err := p.FormatValue().Set(f); err != nil {
			panic(err)
		}
	}
	return p, out, errOut
}

// Each kind of event, in every form: what people and programs read.
func TestStreamForms(t *testing.T) {
	t.Parallel()
	emit := func(st *Stream) {
		_ = st.Event(rowEvent{"start", "-"})
		_ = st.Output(rowEvent{"stdout", "out"}, []byte("out\n"))
		_ = st.ErrOutput(rowEvent{"stderr", "err"}, []byte("err\n"))
		_ = st.Row(rowEvent{"create", "a.txt"}, "create", "a.txt")
		_ = st.Row(rowEvent{"remove", "longer-name.txt"}, "remove", "longer-name.txt")
		_ = st.Note(rowEvent{"reconnected", "3s"}, "reconnected after %s", "3s")
	}
	for _, tc := range []struct {
		form     string
		tty      bool
		out, err string
	}{
		{"table", false, "out\ncreate\ta.txt\nremove\tlonger-name.txt\n", "err\nreconnected after 3s\n"},
		{"table", true, "out\nEVENT   NAME\ncreate  a.txt\nremove  longer-name.txt\n", "err\nreconnected after 3s\n"},
		{"name", false, "out\ncreate\nremove\n", "err\n"}, // a row's first cell
		{"json", false, `{"type":"start","name":"-"}
{"type":"stdout","name":"out"}
{"type":"stderr","name":"err"}
{"type":"create","name":"a.txt"}
{"type":"remove","name":"longer-name.txt"}
{"type":"reconnected","name":"3s"}
`, ""},
	} {
		p, out, errOut := printerIn(tc.tty, tc.form)
		p.io.DisableColor()
		emit(p.Stream(StreamSpec{Header: []string{"event", "name"}}))
		if out.String() != tc.out || errOut.String() != tc.err {
			t.Errorf("%s tty=%v:\nstdout %q\nwant   %q\nstderr %q\nwant   %q", tc.form, tc.tty, out, tc.out, errOut, tc.err)
		}
	}
}

// On a terminal a column is as wide as the widest cell seen so far, the
// header's included, counting what a terminal shows: a wide character
// twice.
func TestStreamRowsAlignAsTheyCome(t *testing.T) {
	t.Parallel()
	p, out, _ := printerIn(true, "table")
	p.io.DisableColor()
	st := p.Stream(StreamSpec{Header: []string{"a", "b"}})
	_ = st.Row(nil, "longcell", "x")
	_ = st.Row(nil, "日本", "y")
	want := "A         B\nlongcell  x\n日本      y\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A server's words in a row or a note are made safe for people, and
// their secrets redacted for programs; a process's output is its data.
func TestStreamSafety(t *testing.T) {
	t.Parallel()
	p, out, _ := printerIn(false, "table")
	p.io.Secrets.Add("s3cr3t-value")
	st := p.Stream(StreamSpec{})
	_ = st.Row(nil, "x\x1b]0;pwned\x07", "s3cr3t-value")
	if got := out.String(); got != "x\\x1b]0;pwned\\a\tREDACTED\n" {
		t.Errorf("piped row %q", got)
	}
	p, out, _ = printerIn(false, "json")
	p.io.Secrets.Add("s3cr3t-value")
	st = p.Stream(StreamSpec{})
	_ = st.Row(rowEvent{"create", "s3cr3t-value"})
	_ = st.Output(rowEvent{"stdout", "s3cr3t-value"}, nil)
	if got := out.String(); got != `{"type":"create","name":"REDACTED"}`+"\n"+`{"type":"stdout","name":"s3cr3t-value"}`+"\n" {
		t.Errorf("JSON lines %q", got)
	}
}

type gathered struct{ events []any }

func (g *gathered) Add(ev any) error { g.events = append(g.events, ev); return nil }
func (g *gathered) Result() any      { return map[string]int{"events": len(g.events)} }

// A verb whose JSON is one object gathers its events under -o json, and
// prints them as they come with its JSON Lines flag; people get the text.
func TestStreamGathers(t *testing.T) {
	t.Parallel()
	for form, want := range map[string]string{
		"json":  "{\n  \"events\": 2\n}\n",
		"lines": `{"type":"stdout","name":"a"}` + "\n" + `{"type":"end","name":""}` + "\n",
		"table": "a\n",
	} {
		p, out, _ := printerIn(false, form)
		st := p.Stream(StreamSpec{Gather: func() Gatherer { return &gathered{} }})
		_ = st.Output(rowEvent{"stdout", "a"}, []byte("a\n"))
		_ = st.Event(rowEvent{"end", ""})
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("%s: %q, want %q", form, out, want)
		}
	}
}

type heldEvent struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// A long value is kept in a temporary file until its event is printed,
// then comes out as encoding/json would print it, and the file is gone;
// people's form holds nothing.
func TestStreamHoldsLongValues(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é\"<\n", holdAt) // escapes, wide runes, over the memory bound
	for _, form := range []string{"lines", "json"} {
		dir := t.TempDir()
		p, out, _ := printerIn(false, form)
		st := p.Stream(StreamSpec{TempDir: dir, Gather: func() Gatherer { return &gathered{} }})
		short, big := st.Hold(), st.Hold()
		_, _ = short.Write([]byte("small"))
		for i := 0; i < len(long); i += 1000 {
			_, _ = big.Write([]byte(long[i:min(i+1000, len(long))]))
		}
		ev := heldEvent{"result", st.Value(big)}
		if v := st.Value(short); v != "small" {
			t.Errorf("a short value stands as itself: %q", v)
		}
		if form == "json" {
			// Gathered: the whole result is printed at the end.
			_ = st.Output(ev, nil)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			var got map[string]int
			if json.Unmarshal(out.Bytes(), &got) != nil || got["events"] != 1 {
				t.Errorf("gathered %q", out)
			}
		} else {
			_ = st.Output(ev, nil)
			var got heldEvent
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Value != long {
				t.Errorf("the held value came out as %d bytes (%v)", len(got.Value), err)
			}
			var want bytes.Buffer
			_ = WriteJSONLine(&want, heldEvent{"result", long})
			if !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Error("not byte for byte what encoding/json prints")
			}
		}
		st.Discard()
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: %d files left", form, len(entries))
		}
	}
	p, _, _ := printerIn(false, "table")
	if h := p.Stream(StreamSpec{}).Hold(); h != nil {
		t.Error("people's form holds values it never prints")
	}
}

// A stream's events go through --jq value by value.
func TestStreamThroughJQ(t *testing.T) {
	t.Parallel()
	p, out, _ := printerIn(false, "table")
	q, err := CompileJQ(".name")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.FilterJQ(context.Background(), q, false); err != nil {
		t.Fatal(err)
	}
	st := p.Stream(StreamSpec{})
	_ = st.Row(rowEvent{"create", "a"}, "create", "a")
	_ = st.Row(rowEvent{"remove", "b"}, "remove", "b")
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out.String() != "a\nb\n" {
		t.Errorf("got %q", out)
	}
}

// -q wins over -o, --jq refuses it, and errors stay JSON with -o json.
func TestBareIDsAndErrors(t *testing.T) {
	t.Parallel()
	p, out, _ := printerIn(false, "json")
	p.AskBareIDs("-q", true)
	_ = p.Print(map[string]string{"id": "x"}, []string{"x"}, nil)
	if out.String() != "x\n" {
		t.Errorf("-q -o json printed %q", out)
	}
	q, _ := CompileJQ(".")
	if err := p.FilterJQ(context.Background(), q, true); err == nil || !strings.Contains(err.Error(), "--jq and -q exclude each other") {
		t.Errorf("--jq with -q: %v", err)
	}
	p, _, errOut := printerIn(false, "json")
	p.AskBareIDs("-q", true)
	p.Error(abxerr.New(abxerr.Usage, "bad"), 2)
	if !strings.HasPrefix(errOut.String(), `{"error":`) {
		t.Errorf("-q -o json error %q", errOut)
	}
	p.AskBareIDs("-q", false)
	p.AskJSONLines(false)
	if p.form() != JSON {
		t.Errorf("-q=false left form %s", p.form())
	}
}
