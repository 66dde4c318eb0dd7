package shell

import (
	"os/exec"
	"testing"
)

// What bash makes of a quoted argv is the argv itself.
func TestLineRoundTripsThroughBash(t *testing.T) {
	t.Parallel()
	argv := []string{"printf", "%s|", "a b", "it's", `"q"`, "$HOME", "*", "", "x\ny", "--flag=v"}
	out, err := exec.Command("bash", "-c", Line(argv)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "a b|it's|\"q\"|$HOME|*||x\ny|--flag=v|"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if got := Line([]string{"echo $HOME | wc -c"}); got != "echo $HOME | wc -c" {
		t.Errorf("one argument is a shell line as written: %q", got)
	}
}

func TestExports(t *testing.T) {
	t.Parallel()
	got := Exports([]string{"A=plain", "B=has space", "C=it's", "D="})
	want := "export A=plain\nexport B='has space'\nexport C='it'\\''s'\nexport D=''\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
