//go:build unix

package jupyter

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"testing"
)

// results are the result lines of an execution, in order.
func results(ls []line) []line {
	var out []line
	for _, l := range ls {
		if l.is("result") {
			out = append(out, l)
		}
	}
	return out
}

// isPNG tells whether a result's png is a PNG image, base64-encoded.
func isPNG(l line) bool {
	b, err := base64.StdEncoding.DecodeString(l.str("png"))
	return err == nil && bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n"))
}

var figureText = regexp.MustCompile(`^<Figure size \d+x\d+ with 1 Axes>$`)

// matplotlib as the code interpreter's IPython shows it, with its inline
// backend: plt.show() displays each open figure as a PNG and closes it;
// the figures still open when a cell ends are displayed then; a Figure as
// the cell's value is its PNG (and, as in IPython, displayed again as the
// cell ends, since pyplot still holds it).
func TestMatplotlibFiguresComeBackAsPNG(t *testing.T) {
	t.Parallel()
	f := start(t, Options{})
	if e := find(f.run(code("import matplotlib.pyplot as plt")), "error"); e != nil {
		t.Skipf("the sandbox's python3 has no matplotlib (%s: %s): Debian's python3-matplotlib provides it", e.str("name"), e.str("value"))
	}

	shown := results(f.run(code("plt.plot([1, 2, 3])\nplt.show()")))
	if len(shown) != 1 || shown[0]["is_main_result"] != false || !isPNG(shown[0]) || !figureText.MatchString(shown[0].str("text")) {
		t.Fatalf("plt.show(): %v", shown)
	}
	if again := results(f.run(code("1 + 1;"))); len(again) != 0 {
		t.Fatalf("a figure shown was not closed: %v", again)
	}

	flushed := results(f.run(code("plt.plot([3, 2, 1])")))
	if len(flushed) != 2 || flushed[0]["is_main_result"] != true || !regexp.MustCompile(`^\[<matplotlib\.lines\.Line2D`).MatchString(flushed[0].str("text")) ||
		flushed[1]["is_main_result"] != false || !isPNG(flushed[1]) {
		t.Fatalf("a figure left open at the cell's end: %v", flushed)
	}

	value := results(f.run(code("fig, ax = plt.subplots()\nax.plot([1])\nfig")))
	if len(value) != 2 || value[0]["is_main_result"] != true || !isPNG(value[0]) || !figureText.MatchString(value[0].str("text")) || !isPNG(value[1]) {
		t.Fatalf("a Figure as the value: %v", value)
	}

	// A backend the code chose is its own: nothing is displayed for it.
	other := results(f.run(code("plt.switch_backend('agg')\nplt.plot([1])")))
	if len(other) != 1 || other[0]["is_main_result"] != true {
		t.Fatalf("with the agg backend: %v", other)
	}
}
