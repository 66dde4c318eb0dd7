//go:build unix

package root

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/fakenet"
	"github.com/abx-dev/abx/internal/output"
)

// The commands that pass a remote status through fail the same way for the
// same cause, and as docs/exit-codes.md says.
func TestPassThroughCommandsShareOneExitPolicy(t *testing.T) {
	t.Parallel()
	commands := map[string][]string{
		"exec":      {"exec", "ID", "--", "true"},
		"ps attach": {"ps", "attach", "ID", "1"},
		"run-code":  {"run-code", "ID", "1+1"},
	}
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	closed := closedPort(t)

	failures := []struct {
		name string
		want int
		// id replaces ID; env changes the fake's environment; flags are added.
		id    string
		env   env
		flags []string
		// cancel interrupts the command once it waits on the service.
		cancel bool
	}{
		{name: "missing sandbox", want: 125, id: "no-such-sandbox"},
		{name: "network error", want: 125, id: "sb", env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": closed}},
		{name: "bad input", want: 125, id: "../api"},
		{name: "bad flag", want: 125, id: "sb", flags: []string{"--no-such-flag"}},
		{name: "missing config", want: 125, id: "sb", env: env{"ABX_ALICLOUD_CONTAINER_API_KEY": ""}},
		{name: "deadline", want: 124, id: "sb", env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": hang.URL},
			flags: []string{"--request-timeout", "1s"}},
		{name: "Ctrl-C", want: 130, id: "sb", env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": hang.URL}, cancel: true},
	}
	doc, err := os.ReadFile("../../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, fl := range failures {
		if !regexp.MustCompile(`(?m)^\| ` + strconv.Itoa(fl.want) + ` \|`).Match(doc) {
			t.Errorf("docs/exit-codes.md has no row for status %d (%s)", fl.want, fl.name)
		}
		for name, argv := range commands {
			t.Run(fl.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				_, e := fakeManager(t)
				for k, v := range fl.env {
					e[k] = v
				}
				// Flags go before exec's --, after which words are the command's.
				var args []string
				for _, a := range argv {
					switch a {
					case "ID":
						a = fl.id
					case "--":
						args = append(args, fl.flags...)
					}
					args = append(args, a)
				}
				if argv[len(argv)-2] != "--" {
					args = append(args, fl.flags...)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
				defer cancel()
				if fl.cancel {
					go func() { time.Sleep(300 * time.Millisecond); cancel() }()
				}
				for _, format := range []string{"table", "json"} {
					io, _, out, errOut := output.Test(false)
					code := Run(ctx, io, func(k string) string { return e[k] }, append([]string{"-o", format}, args...))
					if code != fl.want {
						t.Errorf("-o %s: exit %d, want %d; stderr %q", format, code, fl.want, errOut)
					}
					if format == "json" && !strings.HasPrefix(errOut.String(), `{"error":{`) {
						t.Errorf("-o json: the error is not one JSON object: %q", errOut)
					}
					if format == "table" && (strings.Count(errOut.String(), "\n") != 1 || !strings.HasPrefix(errOut.String(), "error[E")) {
						t.Errorf("the error is not one line: %q", errOut)
					}
					if out.Len() != 0 {
						t.Errorf("stdout %q, want nothing", out)
					}
					if fl.cancel {
						break // the context is spent
					}
				}
			})
		}
	}
}

// closedPort is a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	return "http://127.0.0.1:" + strconv.Itoa(fakenet.FreePort(t))
}
