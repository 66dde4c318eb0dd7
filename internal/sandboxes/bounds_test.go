package sandboxes

import (
	"strconv"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// A listing's depth is 1 to 16: 0 and negative depths are refused, not
// read as envd reads them (0 as 1, -1 wrapped to the whole tree).
func TestCheckListDepth(t *testing.T) {
	t.Parallel()
	for _, d := range []int{MinListDepth, 2, MaxListDepth} {
		if err := CheckListDepth("--depth", d); err != nil {
			t.Errorf("depth %d: %v", d, err)
		}
	}
	for _, d := range []int{0, -1, MaxListDepth + 1, 1 << 32} {
		e := abxerr.From(CheckListDepth("--depth", d))
		if e == nil || e.Code != abxerr.InvalidInput || e.Message != "invalid --depth "+strconv.Itoa(d)+": must be between 1 and 16" {
			t.Errorf("depth %d: %v", d, e)
		}
	}
}

// A template that is empty or only blanks is refused in one wording,
// whichever door it came through; any other name is the service's to
// judge.
func TestCheckTemplate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		template string
		ok       bool
	}{
		{"base", true},
		{"code-interpreter", true},
		{" base ", true},
		{"", false},
		{" ", false},
		{"\t\n", false},
	} {
		err := CheckTemplate(tc.template)
		if tc.ok {
			if err != nil {
				t.Errorf("template %q: %v", tc.template, err)
			}
			continue
		}
		e := abxerr.From(err)
		if e == nil || e.Code != abxerr.InvalidInput || e.Message != "the template is required" ||
			e.Hint != "name the template to start from, e.g. base or code-interpreter" {
			t.Errorf("template %q: %#v", tc.template, e)
		}
	}
}
