//go:build unix

package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/manager"
)

// bashCompletionScripts are where the bash-completion package usually
// lives (Debian/Ubuntu/Fedora, older Debian, Homebrew).
var bashCompletionScripts = []string{
	"/usr/share/bash-completion/bash_completion",
	"/etc/bash_completion",
	"/opt/homebrew/etc/profile.d/bash_completion.sh",
	"/usr/local/etc/profile.d/bash_completion.sh",
}

// TestBashCompletionInTmux loads `abx completion bash` into a real bash
// running in tmux and checks that Tab after `abx info ` offers the sandbox
// that exists. cobra's bash script needs the bash-completion package
// (_get_comp_words_by_ref); without it the test still checks that the
// script registers itself and that its functions, called directly in that
// shell, ask abx and get the ID back (docs/completion.md).
func TestBashCompletionInTmux(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"tmux", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	// abx is this test binary under the name abx, as in the stories
	// (TestMain): no second link of the whole command.
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "abx")); err != nil {
		t.Fatal(err)
	}

	srv := manager.New(manager.Options{APIKey: testKey, Domain: "abx.test", KeepRequests: true})
	gw := emulator.NewGateway(srv, filepath.Join(dir, "sandboxes"), "0.2.10")
	t.Cleanup(gw.Close)
	fake := httptest.NewServer(gw)
	t.Cleanup(fake.Close)

	// The shell's whole environment: nothing of the user's, and a prompt to
	// recognise.
	env := []string{
		"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + dir,
		"TERM=xterm",
		"PS1=abx-test$ ",
		"HISTFILE=", // bash would write it while the temporary dir is removed
		"ABX_PROVIDER=alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL=" + fake.URL,
		"ABX_ALICLOUD_CONTAINER_API_KEY=" + testKey,
	}
	create := exec.Command(filepath.Join(dir, "abx"), "create", "--template", "base", "-q")
	create.Env = env
	out, err := create.Output()
	if err != nil {
		t.Fatalf("abx create: %v", err)
	}
	id := strings.TrimSpace(string(out))

	// A private server (-L), without the user's tmux.conf (-f), stopped at
	// the end whatever happens.
	socket := fmt.Sprintf("abx-completion-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-L", socket, "-f", os.DevNull}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", socket, "kill-server").Run()
	})
	tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "abx", "bash", "--norc", "--noprofile")
	waitPane := func(what, want string) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute) // a hang guard
		for {
			pane := tmux("capture-pane", "-p", "-t", "abx")
			if strings.Contains(pane, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 2 minutes the pane shows no %s (%q):\n%s", what, want, pane)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	typeLine := func(line string) {
		t.Helper()
		tmux("send-keys", "-t", "abx", "-l", line)
		tmux("send-keys", "-t", "abx", "Enter")
	}
	waitPane("prompt", "abx-test$") // capture-pane drops trailing blanks

	bashCompletion := ""
	for _, p := range bashCompletionScripts {
		if _, err := os.Stat(p); err == nil {
			bashCompletion = p
			break
		}
	}
	if bashCompletion != "" {
		typeLine("source " + bashCompletion)
	}
	typeLine("source <(abx completion bash) && complete -p abx")
	waitPane("registration", "complete -o default -F __start_abx abx")

	if bashCompletion != "" {
		tmux("send-keys", "-t", "abx", "-l", "abx info ")
		tmux("send-keys", "-t", "abx", "Tab")
		waitPane("completed ID", "abx info "+id)
		return
	}
	t.Logf("bash-completion is not installed: calling the completion functions directly")
	// What __start_abx does once bash-completion has split the line: ask
	// abx, then turn its answer into COMPREPLY. (compopt complains outside
	// a real completion; its notice goes to /dev/null.)
	typeLine(`words=(abx info ''); cword=2; cur=''; prev=info; ` +
		`__abx_get_completion_results && __abx_process_completion_results 2>/dev/null; ` +
		`printf 'candidate=%s\n' "${COMPREPLY[@]}"`)
	waitPane("ID from the completion function", "candidate="+id)
}
