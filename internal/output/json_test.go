package output

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// controls holds what a terminal acts on: C0 (ESC, BEL), DEL, C1 (CSI,
// U+009B, which terminals read as ESC [), and a bidirectional override.
const controls = "a\x1b[2J\x07\x7f\u0080\u009b31m\u009f\u202eb"

// controlsJSON is controls as abx's JSON writes it.
const controlsJSON = `"a\u001b[2J\u0007\u007f\u0080\u009b31m\u009f\u202eb"`

// raw reports the characters of controls (and any C1) left raw in out.
func raw(out string) []string {
	var left []string
	for _, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
			left = append(left, string(r))
		}
	}
	return left
}

func TestJSONEscapesEveryControl(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteJSON(&b, map[string]string{"name": controls, "é": "ü<>&"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"name\": " + controlsJSON + ",\n  \"é\": \"ü<>&\"\n}\n"; b.String() != want {
		t.Errorf("WriteJSON:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := WriteJSONLine(&b, []string{controls}); err != nil {
		t.Fatal(err)
	}
	if want := "[" + controlsJSON + "]\n"; b.String() != want {
		t.Errorf("WriteJSONLine %q, want %q", b.String(), want)
	}

	// A result with a secret in it is encoded again once redacted.
	s, _, out, errOut := Test(true)
	s.Secrets.Add(apiKey)
	p := NewPrinter(s)
	p.SetFormat(JSON)
	if err := p.Print(map[string]string{"name": controls + apiKey}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"name\": " + strings.TrimSuffix(controlsJSON, `"`) + `REDACTED"` + "\n}\n"; out.String() != want {
		t.Errorf("a redacted result %q, want %q", out.String(), want)
	}
	p.Error(abxerr.New(abxerr.Server, "boom %s", controls), 1)
	if !strings.Contains(errOut.String(), `"message":"boom `+strings.Trim(controlsJSON, `"`)+`"`) || raw(errOut.String()) != nil {
		t.Errorf("a JSON error %q", errOut.String())
	}

	// JSON Lines, a held value of a stream, and what --jq prints as JSON.
	lines, lout, _ := printerIn(true, "lines")
	st := lines.Stream(StreamSpec{TempDir: t.TempDir()})
	h := st.Hold()
	_, _ = h.Write([]byte(controls))
	_ = st.Output(heldEvent{"result", st.Value(h)}, nil)
	_ = st.Event(rowEvent{"create", controls})
	if want := `{"type":"result","value":` + controlsJSON + "}\n" + `{"type":"create","name":` + controlsJSON + "}\n"; lout.String() != want {
		t.Errorf("JSON Lines %q, want %q", lout.String(), want)
	}
	jp, jout, _ := printerIn(true, "table")
	q, err := CompileJQ("{name}")
	if err != nil {
		t.Fatal(err)
	}
	if err := jp.FilterJQ(context.Background(), q, false); err != nil {
		t.Fatal(err)
	}
	_ = jp.Stream(StreamSpec{}).Row(rowEvent{"create", controls}, "create", controls)
	if err := jp.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"name\": " + controlsJSON + "\n}\n"; jout.String() != want {
		t.Errorf("--jq %q, want %q", jout.String(), want)
	}
}
