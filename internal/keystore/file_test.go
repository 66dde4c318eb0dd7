package keystore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/runfile"
)

func TestFileStoreKeepsKeysPrivately(t *testing.T) {
	dir := t.TempDir()
	s := Keys{Config: filepath.Join(dir, "config.yaml")}.File()
	if _, err := s.Get("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing key: %v", err)
	}
	if err := s.Set("a", "k1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("a", "k2"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("a"); err != nil || got != "k2" {
		t.Fatalf("got %q, %v", got, err)
	}
	if runfile.ModesMatter {
		for p, want := range map[string]os.FileMode{s.Path("a"): 0o600, s.Dir: 0o700} {
			if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
				t.Errorf("%s: %v, %v (want %04o)", p, info.Mode(), err, want)
			}
		}
	}
	if entries, _ := os.ReadDir(s.Dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("a"); err != nil {
		t.Fatalf("a second delete: %v", err)
	}
	if _, err := s.Get("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

// A key file others may read is refused, with the chmod that mends it,
// and the key is not returned.
func TestFileStoreRefusesAKeyOthersMayRead(t *testing.T) {
	if !runfile.ModesMatter {
		t.Skip("no mode bits here")
	}
	s := &File{Dir: t.TempDir()}
	if err := s.Set("a", "secret-key"); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Path("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	key, err := s.Get("a")
	e := abxerr.From(err)
	if err == nil || key != "" || e.Code != abxerr.InvalidConfig || !strings.Contains(e.Hint, "chmod 600 "+s.Path("a")) ||
		strings.Contains(e.Error(), "secret-key") {
		t.Fatalf("%q, %v (%s)", key, err, e.Hint)
	}
}

// Without a session bus there is no keyring to ask, and none is started.
func TestNoBusNoKeyring(t *testing.T) {
	if isDarwinOrWindows() {
		t.Skip("the keyring here needs no bus")
	}
	k := Keys{Config: "/x/config.yaml", Getenv: func(string) string { return "" }}.Keyring()
	if err := k.Set("a", "secret"); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no session bus") {
		t.Fatalf("set without a bus: %v", err)
	}
	if _, err := k.Get("a"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("get without a bus: %v", err)
	}
}

// A key file someone else could have written, or could replace, is
// refused: keys/ writable by others, or the file another user's. Nothing
// is written where others could replace it.
func TestFileStoreRefusesAKeyOthersMayReplace(t *testing.T) {
	if !runfile.ModesMatter {
		t.Skip("no mode bits here")
	}
	home := t.TempDir()
	s := Keys{Config: filepath.Join(home, "abx", "config.yaml"), Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}.File()
	if err := s.Set("a", "secret-key"); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	key, err := s.Get("a")
	if e := abxerr.From(err); err == nil || key != "" || e.Code != abxerr.InvalidConfig ||
		!strings.Contains(e.Message, "the key file "+s.Path("a")+" is not safe: others may write in "+s.Dir) {
		t.Fatalf("%q, %v", key, err)
	}
	if err := s.Set("b", "other-key"); err == nil || !strings.Contains(err.Error(), "others may write in "+s.Dir) {
		t.Fatalf("set in a directory others may write in: %v", err)
	}
	if _, err := os.Stat(s.Path("b")); err == nil {
		t.Fatal("written where others may replace it")
	}
	if err := os.Chmod(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return // giving a file to another uid needs root (CI runs the tests as root)
	}
	if err := os.Chown(s.Path("a"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	key, err = s.Get("a")
	if e := abxerr.From(err); err == nil || key != "" || !strings.Contains(e.Message, "the key file "+s.Path("a")+" is owned by uid 65534") {
		t.Fatalf("another uid's key file: %q, %v", key, err)
	}
}
