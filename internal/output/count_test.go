package output

import "testing"

func TestCountAgrees(t *testing.T) {
	cases := []struct {
		n    int
		want string
	}{{0, "0 sandboxes"}, {1, "1 sandbox"}, {2, "2 sandboxes"}, {-1, "-1 sandboxes"}}
	for _, tc := range cases {
		if got := Count(tc.n, "sandbox", "sandboxes"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
