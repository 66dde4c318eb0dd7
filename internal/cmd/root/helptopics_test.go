//go:build unix

package root

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory"
)

// helpTopic runs 'abx help TOPIC' with no provider configured, as a user
// reading the help first would.
func helpTopic(t *testing.T, topic string) string {
	t.Helper()
	r := run(t, env{}, false, "help", topic)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("abx help %s: exit %d, stderr %q", topic, r.code, r.stderr)
	}
	return r.stdout
}

func TestHelpTopicsAreListedInHelp(t *testing.T) {
	t.Parallel()
	r := run(t, env{}, false, "--help")
	if !strings.Contains(r.stdout, "Additional help topics:") {
		t.Fatalf("abx --help lists no help topics:\n%s", r.stdout)
	}
	for _, topic := range []string{"environment", "exit-codes", "formatting"} {
		if !strings.Contains(r.stdout, "abx "+topic+" ") {
			t.Errorf("abx --help does not list the topic %s", topic)
		}
	}
}

func TestHelpEnvironmentNamesEveryVariable(t *testing.T) {
	t.Parallel()
	out := helpTopic(t, "environment")
	io, _, _, _ := testStreams()
	for _, d := range factory.New(io, nil, factory.Options{}).Registry.All() {
		for _, s := range d.Settings {
			// The variable on its own line, its flag and secrecy on the next.
			block := regexp.MustCompile(`(?m)^    ` + regexp.QuoteMeta(s.Env) + `\n +(.*)$`).FindStringSubmatch(out)
			if block == nil {
				t.Errorf("%s (%s) is not listed", s.Env, d.Name)
				continue
			}
			if !strings.HasPrefix(block[1], "--"+s.Flag) {
				t.Errorf("%s: want its flag --%s first, got %q", s.Env, s.Flag, block[1])
			}
			if s.Secret != regexp.MustCompile(`, secret[,:]`).MatchString(block[1]) {
				t.Errorf("%s: secret is %v, but the help says %q", s.Env, s.Secret, block[1])
			}
			if s.Default != "" && !strings.Contains(block[1], "default "+s.Default) {
				t.Errorf("%s: default %s not shown in %q", s.Env, s.Default, block[1])
			}
		}
	}
	for _, v := range []string{"ABX_PROVIDER", "NO_COLOR", "TERM", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY",
		"SSL_CERT_FILE", "XDG_STATE_HOME"} {
		if !regexp.MustCompile(`\b` + v + `\b`).MatchString(out) {
			t.Errorf("%s is not mentioned", v)
		}
	}
}

func TestHelpExitCodesListsEveryCode(t *testing.T) {
	t.Parallel()
	out := helpTopic(t, "exit-codes")
	for _, c := range abxerr.Codes() {
		// The status and its meaning, wrapped, then its codes.
		row := fmt.Sprintf(`(?m)^    %d +\S.*\n(?:          .*\n)*?          (?:E\d+ )*%s\b`, c.ExitCode(), c)
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("%s is not listed under exit status %d", c, c.ExitCode())
		}
	}
	for _, want := range []string{"abx exec", "abx run-code", "125", "127", "128+n", "docs/exit-codes.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("abx help exit-codes does not mention %q", want)
		}
	}
}

func TestHelpFormattingCoversEveryForm(t *testing.T) {
	t.Parallel()
	out := helpTopic(t, "formatting")
	for _, want := range []string{"-o table", "-o wide", "-o json", "-o name", "tab-separated", "no header",
		"RFC 3339", "NO_COLOR", "docs/json.md", "--jq EXPR", "implies -o json", "exits 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("abx help formatting does not mention %q", want)
		}
	}
}

// Indented blocks stay preformatted in the man pages, where anything wider
// than a terminal runs off its edge.
func TestHelpTopicBlocksFitATerminal(t *testing.T) {
	t.Parallel()
	for _, topic := range []string{"environment", "exit-codes", "formatting"} {
		for _, line := range strings.Split(helpTopic(t, topic), "\n") {
			if strings.HasPrefix(line, "    ") && len(line) > 80 {
				t.Errorf("abx help %s: line of %d columns: %q", topic, len(line), line)
			}
		}
	}
}

// Help groups the commands, and shows the provider's settings only where a
// provider is used.
func TestHelpShowsProviderFlagsWhereTheyApply(t *testing.T) {
	t.Parallel()
	r := run(t, env{}, false, "--help")
	for _, group := range []string{"Sandboxes:", "Inside a sandbox:", "On this machine:", "Settings and information:"} {
		if !strings.Contains(r.stdout, "\n"+group+"\n") {
			t.Errorf("abx --help lacks the group %q", group)
		}
	}
	// login and config need no provider selected before they run, but take
	// the provider's settings as flags: their help lists them.
	for cmd, want := range map[string]bool{"info": true, "files ls": true, "run-code": true, "version": false, "emulator start": false,
		"login": true, "config": true, "logout": false, "profile use": false} {
		r := run(t, env{}, false, append(strings.Fields(cmd), "--help")...)
		if got := strings.Contains(r.stdout, "\nProvider flags"); got != want || !strings.Contains(r.stdout, "--output") {
			t.Errorf("abx %s --help: provider flags shown %v, want %v", cmd, got, want)
		}
		if strings.Contains(r.stdout, "--domain") != want {
			t.Errorf("abx %s --help: --domain shown %v, want %v", cmd, !want, want)
		}
	}
}
