//go:build unix

package root

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	"github.com/abx-dev/abx/internal/emulator/manager"
)

// A guarded sandbox whose token a process cannot get (the manager's
// refresh route fails as sandbox-manager's does): each data-plane command
// says so in one line with the manager's words and the documented status,
// and sends nothing to the sandbox, where the gateway would only have
// answered 403.
func TestAGuardedSandboxWhoseTokenCannotBeHad(t *testing.T) {
	t.Parallel()
	_, e := emutest.Cluster(t, func(o *manager.Options) { o.TrafficTokenValidity = time.Minute })
	p := faultproxy.New(e["ABX_ALICLOUD_CONTAINER_BASE_URL"])
	t.Cleanup(p.Close)
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = p.URL + "/kruise/api"
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	e["ABX_ALICLOUD_CONTAINER_RETRIES"] = "0" // the words are the subject, not the retries of a 503
	r := run(t, e, false, "create", "--template", "code-interpreter", "-q", "--metadata", e2bapi.TrafficAuthKey+"=true")
	if r.code != 0 {
		t.Fatalf("create: %d %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)

	for _, refusal := range []struct {
		status      int
		message     string
		code, words string
		exit        int
	}{
		{503, "Traffic access token issuer is unavailable", "E5002", "Traffic access token issuer is unavailable", 1},
		{404, "Sandbox not found", "E3001", "Sandbox not found", 3},
		{409, "Sandbox cannot refresh its traffic access token", "E5003", "cannot refresh", 1},
	} {
		for _, args := range [][]string{
			{"exec", id, "--", "echo", "hi"},
			{"files", "read", id, "/etc/hostname"},
			{"run-code", id, "1"},
			{"ps", id},
		} {
			p.Reset()
			p.Add(faultproxy.Rule{Method: "POST", Path: "/traffic-access-token$",
				Fault: faultproxy.Status(refusal.status, `{"code":`+itoa(refusal.status)+`,"message":"`+refusal.message+`"}`, "Content-Type", "application/json")})
			r := run(t, e, false, args...)
			want := refusal.exit
			if args[0] == "exec" || args[0] == "run-code" {
				want = 125 // they pass the remote status on: abx's own failures are 125
			}
			line := regexp.MustCompile(`^error\[` + refusal.code + `\]: cannot get a traffic token for sandbox ` + regexp.QuoteMeta(id) +
				`, which its gateway asks of every request: .*` + regexp.QuoteMeta(refusal.words))
			if r.code != want || !line.MatchString(r.stderr) {
				t.Errorf("%d, %s: exit %d, stderr %q; want %d and the refusal", refusal.status, args[0], r.code, r.stderr, want)
			}
			for _, s := range p.Seen() {
				if strings.Contains(s, "/kruise/"+id+"/") {
					t.Errorf("%d, %s: the data plane was sent %s without a token", refusal.status, args[0], s)
				}
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
