//go:build unix

package root

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// One rule for flags that ask for a form of the output (-q, --stream,
// --jq): with an -o of another form, or with each other where their forms
// differ, the line is refused (E1001) before anything is sent, whichever
// comes first on it. Where the forms agree, they go together.
func TestOutputFlagsThatConflictAreRefused(t *testing.T) {
	t.Parallel()
	refused := []struct {
		args []string
		want string
		exit int
	}{
		{[]string{"create", "--template", "base", "-q", "-o", "json"}, `-q and -o json exclude each other`, abxerr.ExitUsage},
		{[]string{"create", "--template", "base", "-o", "json", "-q"}, `-q and -o json exclude each other`, abxerr.ExitUsage},
		{[]string{"create", "--template", "base", "--quiet", "-o", "table"}, `-q and -o table exclude each other`, abxerr.ExitUsage},
		{[]string{"create", "--template", "base", "-q", "-o", "wide"}, `-q and -o wide exclude each other`, abxerr.ExitUsage},
		{[]string{"run-code", "sb-1", "--stream", "-o", "table", "1"}, `--stream and -o table exclude each other`, abxerr.ExitOwnFailure},
		{[]string{"run-code", "sb-1", "-o", "name", "--stream", "1"}, `--stream and -o name exclude each other`, abxerr.ExitOwnFailure},
	}
	for _, tc := range refused {
		srv, e := fakeManager(t)
		r := run(t, e, false, tc.args...)
		if r.code != tc.exit || !strings.Contains(r.stderr, `"code":"E1001"`) && !strings.Contains(r.stderr, "error[E1001]") ||
			!strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.exit, tc.want)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%v: %d requests sent", tc.args, n)
		}
	}
	// The same form twice is no conflict.
	_, e := fakeManager(t)
	r := run(t, e, false, "create", "--template", "base", "-q", "-o", "name")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "default--base-") || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("-q -o name: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
