//go:build unix

package root

import (
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

func TestJQFlag(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	// The data plane on the API's own origin: no name to resolve.
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	var ids []string
	for range 2 {
		r := run(t, e, false, "create", "--template", "base", "-q")
		if r.code != 0 {
			t.Fatalf("create: %d %s", r.code, r.stderr)
		}
		ids = append(ids, strings.TrimSpace(r.stdout))
	}

	r := run(t, e, false, "list", "--jq", ".[].sandboxID")
	if r.code != 0 || r.stdout != ids[0]+"\n"+ids[1]+"\n" {
		t.Errorf("list --jq: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, e, false, "info", ids[0], "--jq", "{id: .sandboxID, state}")
	if r.stdout != `{"id":"`+ids[0]+`","state":"running"}`+"\n" {
		t.Errorf("info --jq piped: %q", r.stdout)
	}
	r = run(t, e, true, "info", ids[0], "--jq", "{state}")
	if r.stdout != "{\n  \"state\": \"running\"\n}\n" {
		t.Errorf("info --jq on a terminal: %q", r.stdout)
	}
	r = run(t, e, false, "list", "--jq", ".[0].sandboxID", "-o", "json")
	if r.stdout != ids[0]+"\n" {
		t.Errorf("--jq with -o json: %q", r.stdout)
	}
	// a runtime error of the expression: the data came, the filter failed
	r = run(t, e, false, "list", "--jq", ".sandboxID")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "error[E5005]: --jq: ") {
		t.Errorf("runtime error: %d %q", r.code, r.stderr)
	}
	// exec's 1 is the remote command's: a failing filter is abx's 125,
	// whatever the command's own status
	for _, line := range []string{"echo a", "echo a; exit 3"} {
		r = run(t, e, false, "exec", ids[0], "--jq", ".data | ascii_downcase", "--", line)
		if r.code != abxerr.ExitOwnFailure || !strings.HasPrefix(r.stderr, "error[E5005]: --jq: ") {
			t.Errorf("exec %q with a failing filter: %d %q", line, r.code, r.stderr)
		}
	}
}

func TestJQRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--jq", ".[] |"}, `error[E1002]: invalid --jq expression ".[] |"`},
		{[]string{"list", "--jq", ".[]", "-o", "table"}, "error[E1001]: --jq filters JSON output; it cannot go with -o table"},
		{[]string{"list", "--jq", ".[]", "-o", "name"}, "cannot go with -o name"},
		{[]string{"files", "read", "sb-1", "x", "--jq", "."}, "error[E1001]: abx files read prints no JSON for --jq to filter"},
		{[]string{"create", "--template", "base", "-q", "--jq", "."}, "error[E1001]: --jq and -q exclude each other"},
		{[]string{"completion", "bash", "--jq", "."}, "prints no JSON"},
		{[]string{"list", "-o", "json", "--jq", ".["}, "error[E1002]: invalid --jq expression"},
	} {
		srv, e := fakeManager(t)
		r := run(t, e, false, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%v: %d requests sent", tc.args, n)
		}
	}
}
