//go:build unix

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// home makes a home with abx's directory in it, as abx makes it.
func home(t *testing.T) (home, path string) {
	t.Helper()
	home = t.TempDir()
	path = filepath.Join(home, ".config", "abx", "config.yaml")
	if err := Update(path, home, known, func(f *File) error {
		f.Profiles["a"] = &Profile{Provider: "p", Settings: map[string]string{"domain": "a.example.com"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return home, path
}

func wantUnsafe(t *testing.T, err error, message string) {
	t.Helper()
	e := abxerr.From(err)
	if err == nil || e.Code != abxerr.InvalidConfig || !strings.Contains(e.Message, message) || e.Hint == "" {
		t.Fatalf("got %v; want %q", err, message)
	}
}

// A config file in a directory others may write in could be replaced by
// one that sends the key elsewhere: refused to read, and nothing is
// written there.
func TestAConfigOthersMayReplaceIsRefused(t *testing.T) {
	t.Parallel()
	h, path := home(t)
	dir := filepath.Dir(path)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, h, known)
	wantUnsafe(t, err, path+" is not safe: others may write in "+dir+" (mode 0777)")
	before, _ := os.ReadFile(path)
	err = Update(path, h, known, func(f *File) error { f.Current = "a"; return nil })
	wantUnsafe(t, err, "others may write in "+dir)
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the file changed:\n%s", after)
	}
	// Where there is no file yet, nothing is written there either.
	fresh := filepath.Join(dir, "other.yaml")
	err = Update(fresh, h, known, func(*File) error { return nil })
	wantUnsafe(t, err, fresh+" is not safe: others may write in "+dir)
	if _, err := os.Stat(fresh); err == nil {
		t.Error("written where others may replace it")
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, h, known); err != nil {
		t.Fatal(err)
	}
}

// A config file of another user's is refused, whatever its mode.
func TestAConfigOfAnotherUserIsRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another uid (CI runs the tests as root)")
	}
	h, path := home(t)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, h, known)
	wantUnsafe(t, err, path+" is owned by uid 65534, not by you (root): its owner may rewrite it")
}
