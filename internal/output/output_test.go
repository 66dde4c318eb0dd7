package output

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestColorConventions(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cases := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false},
		{map[string]string{"TERM": "dumb"}, false},
		{map[string]string{"TERM": "xterm", "NO_COLOR": ""}, true},
	}
	for _, tc := range cases {
		if got := colorAllowed(env(tc.env)); got != tc.want {
			t.Errorf("%v: colour %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestTimesAdaptToThePipe(t *testing.T) {
	tty, _, _, _ := Test(true)
	pipe, _, _, _ := Test(false)
	now := tty.Now()
	cases := []struct {
		t         time.Time
		tty, pipe string
	}{
		{now.Add(-90 * time.Second), "2m ago", now.Add(-90 * time.Second).UTC().Format(time.RFC3339)},
		{now.Add(3 * time.Hour), "in 3h", "2026-01-02T18:04:05Z"},
		{now.Add(100 * 365 * 24 * time.Hour), "no deadline", now.Add(100 * 365 * 24 * time.Hour).Format(time.RFC3339)},
		{time.Time{}, "-", "-"},
	}
	for _, tc := range cases {
		if got := tty.Time(tc.t); got != tc.tty {
			t.Errorf("tty %v = %q, want %q", tc.t, got, tc.tty)
		}
		if got := pipe.Time(tc.t); got != tc.pipe {
			t.Errorf("pipe %v = %q, want %q", tc.t, got, tc.pipe)
		}
	}
}

func TestTables(t *testing.T) {
	pipe, _, out, _ := Test(false)
	tb := pipe.NewTable("id", "state")
	tb.Row("a b", pipe.State("running"))
	tb.Row("c", pipe.State("paused"))
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "a b\trunning\nc\tpaused\n" {
		t.Errorf("piped table %q", out.String())
	}

	tty, _, out, _ := Test(true)
	tb = tty.NewTable("id", "state")
	tb.Row("a", tty.State("running"))
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\x1b[32mrunning") || !strings.Contains(out.String(), "ID") {
		t.Errorf("tty table %q", out.String())
	}
	tty.DisableColor()
	out.Reset()
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b[1m") {
		t.Errorf("--no-color table has escapes: %q", out.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"table", "wide", "json", "name"} {
		if _, err := ParseFormat(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Errorf("yaml: %v", err)
	}
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	for _, tty := range []bool{false, true} {
		s, _, _, errOut := Test(tty)
		p := s.NewProgress("big.bin", 64<<20)
		w := p.Writer(io.Discard)
		chunk := make([]byte, 1<<20)
		for i := 0; i < 64; i++ {
			_, _ = w.Write(chunk)
			if i == 40 {
				p.last = time.Time{} // let the next write draw
			}
		}
		p.Done()
		drawn := strings.Contains(errOut.String(), "big.bin ")
		if drawn != tty {
			t.Errorf("tty=%v: meter drawn=%v: %q", tty, drawn, errOut.String())
		}
		if tty && !strings.HasSuffix(errOut.String(), "\r\x1b[K") {
			t.Errorf("the meter's line is not cleared: %q", errOut.String())
		}
	}
}
