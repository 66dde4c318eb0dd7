package sandboxes

import (
	"strconv"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// A listing's depth is 1 to 16: 0 and negative depths are refused, not
// read as envd reads them (0 as 1, -1 wrapped to the whole tree).
func TestAListingsDepth(t *testing.T) {
	t.Parallel()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.FilesRW)
	ctx := WithSpelling(t.Context(), Spelling{Names: map[string]string{"depth": "--depth"}, Quote: true})
	for _, d := range []int{0, -1, 17, 1 << 32} {
		_, err := s.ListDir(ctx, "sb", "", ".", d)
		e := abxerr.From(err)
		if e == nil || e.Code != abxerr.InvalidInput || e.Message != "invalid --depth "+strconv.Itoa(d)+": must be between 1 and 16" {
			t.Errorf("depth %d: %v", d, e)
		}
	}
	if p.reads.Load() != 0 {
		t.Errorf("%d reads of the sandbox", p.reads.Load())
	}
	in := Op("files.list").Input("depth")
	if in.Min != 1 || in.Max != 16 || in.Range() != "1 and 16" {
		t.Errorf("depth %+v", in)
	}
}

// A template that is empty or only blanks is refused in one wording,
// whichever door it came through; any other name is the service's to
// judge.
func TestTheTemplateIsRequired(t *testing.T) {
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
		err := Op("sandbox.create").Input("template").CheckText(t.Context(), tc.template)
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
