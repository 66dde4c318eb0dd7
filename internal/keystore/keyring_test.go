package keystore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func isDarwinOrWindows() bool { return runtime.GOOS == "darwin" || runtime.GOOS == "windows" }

// sessionEnv marks the test binary run again inside a session of its own
// with a Secret Service (gnome-keyring), as a desktop has.
const sessionEnv = "ABX_TEST_KEYRING_SESSION"

// TestKeyringAgainstSecretService runs the keyring store against a real
// Secret Service: gnome-keyring in a D-Bus session of the test's own
// (dbus-run-session), its login keyring unlocked with a password given on
// stdin, as a desktop's login does. Where the machine has neither it is
// skipped, unless ABX_REQUIRE_KEYRING asks for it (CI installs both).
func TestKeyringAgainstSecretService(t *testing.T) {
	if os.Getenv(sessionEnv) == "1" {
		keyringStory(t)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("Secret Service is tested on Linux")
	}
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("ABX_REQUIRE_KEYRING") != "" {
				t.Fatalf("%s is not installed, and ABX_REQUIRE_KEYRING asks for the keyring's test", tool)
			}
			t.Skipf("%s is not installed (Debian: dbus-daemon, gnome-keyring)", tool)
		}
	}
	home := t.TempDir()
	// Bounded: a daemon the bus started may outlive the session and hold
	// the output's pipe open (WaitDelay); a session that hangs is a
	// failure, not a test that never ends.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dbus-run-session", "--", "sh", "-c",
		`printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$0" "$@"`,
		os.Args[0], "-test.run", "^TestKeyringAgainstSecretService$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), sessionEnv+"=1", "HOME="+home, "XDG_RUNTIME_DIR="+home, "XDG_DATA_HOME="+home+"/data")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // the session ended; a daemon of it held the pipe
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestKeyringAgainstSecretService") {
		t.Fatalf("in a session with gnome-keyring: %v\n%s", err, out)
	}
}

func keyringStory(t *testing.T) {
	a := Keys{Config: "/a/config.yaml", Getenv: os.Getenv}.Keyring()
	b := Keys{Config: "/b/config.yaml", Getenv: os.Getenv}.Keyring()
	// The session's keyring answers: nothing stored yet.
	if _, err := a.Get("prod"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the session's keyring, nothing stored yet: %v", err)
	}
	if err := a.Set("prod", "key-a"); err != nil {
		t.Fatal(err)
	}
	if err := b.Set("prod", "key-b"); err != nil {
		t.Fatal(err)
	}
	// Profiles of the same name in two config files keep their own keys.
	if got, err := a.Get("prod"); err != nil || got != "key-a" {
		t.Fatalf("a: %q, %v", got, err)
	}
	if got, err := b.Get("prod"); err != nil || got != "key-b" {
		t.Fatalf("b: %q, %v", got, err)
	}
	if err := a.Set("prod", "key-a2"); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Get("prod"); got != "key-a2" {
		t.Fatalf("replaced: %q", got)
	}
	if err := a.Delete("prod"); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete("prod"); err != nil {
		t.Fatalf("a second delete: %v", err)
	}
	if _, err := a.Get("prod"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if got, _ := b.Get("prod"); got != "key-b" {
		t.Fatalf("b after a's delete: %q", got)
	}
}
