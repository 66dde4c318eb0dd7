package root

import (
	"slices"
	"testing"
)

// An argument that is a negative number is moved after "--", the flags
// (and their values, negative ones included) left where they were.
func TestNegativeValues(t *testing.T) {
	t.Parallel()
	cases := []struct{ args, want []string }{
		{[]string{"timeout", "sb-1", "-1s"}, []string{"timeout", "sb-1", "--", "-1s"}},
		{[]string{"timeout", "-o", "json", "sb-1", "-5", "--request-timeout", "5s"},
			[]string{"timeout", "-o", "json", "sb-1", "--request-timeout", "5s", "--", "-5"}},
		{[]string{"-o", "json", "url", "sb-1", "-.5"}, []string{"-o", "json", "url", "sb-1", "--", "-.5"}},
		{[]string{"metrics", "sb-1", "--watch", "-n", "-1"}, []string{"metrics", "sb-1", "--watch", "-n", "-1"}},
		{[]string{"metrics", "sb-1", "-wn", "-1"}, []string{"metrics", "sb-1", "-wn", "-1"}},
		{[]string{"metrics", "sb-1", "--count=-1"}, []string{"metrics", "sb-1", "--count=-1"}},
		{[]string{"timeout", "sb-1", "--", "-5m"}, []string{"timeout", "sb-1", "--", "-5m"}},
		{[]string{"exec", "sb-1", "-5"}, []string{"exec", "sb-1", "-5"}},
		{[]string{"list", "-o", "name"}, []string{"list", "-o", "name"}},
	}
	for _, tc := range cases {
		tr := newTree(newFactory())
		tr.lazy(tc.args)
		if got := negativeValues(tr.root, tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}
