package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/runfile"
)

func known(provider, key string) bool {
	return provider == "p" && (key == "domain" || key == "protocol")
}

func write(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadReadsProfiles(t *testing.T) {
	path := write(t, "current: a\nprofiles:\n  a:\n    provider: p\n    domain: a.example.com\n    key: keyring\n  b:\n    provider: p\n    protocol: private\n", 0o600)
	f, err := Load(path, "", known)
	if err != nil {
		t.Fatal(err)
	}
	if f.Current != "a" || f.Profiles["a"].Settings["domain"] != "a.example.com" || f.Profiles["a"].Key != KeyKeyring ||
		f.Profiles["b"].Settings["protocol"] != "private" || strings.Join(f.Names(), ",") != "a,b" {
		t.Fatalf("read %+v", f)
	}
}

func TestAMissingFileIsEmpty(t *testing.T) {
	f, err := Load(filepath.Join(t.TempDir(), "none.yaml"), "", known)
	if err != nil || len(f.Profiles) != 0 || f.Current != "" {
		t.Fatalf("%+v, %v", f, err)
	}
}

// Every refusal is one line that names the file and the line, exit 2.
func TestLoadRefusesWithPathAndLine(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"malformed", "profiles:\n  a:\n    provider: p\n    domain: x: y\n", ":4: mapping values are not allowed"},
		{"a tab", "profiles:\n\ta: 1\n", ":2: "},
		{"unknown field", "current: a\nprofile:\n  a: {}\n", `:2: unknown field "profile"`},
		{"unknown setting", "profiles:\n  a:\n    provider: p\n    colour: red\n", `:4: profile "a": unknown setting "colour" of provider p`},
		{"the key itself", "profiles:\n  a:\n    provider: p\n    api_key: secret\n", `:4: profile "a": unknown setting "api_key"`},
		{"no provider", "profiles:\n  a:\n    domain: x\n", `:2: profile "a" names no provider`},
		{"twice", "profiles:\n  a:\n    provider: p\n    domain: x\n    domain: y\n", `:5: "domain" is given twice`},
		{"a list", "profiles:\n  a:\n    provider: p\n    domain: [x]\n", `:4: "domain" must be a single value`},
		{"current missing", "current: b\nprofiles:\n  a:\n    provider: p\n", `:1: the current profile "b" is not in the file`},
		{"bad name", "profiles:\n  ../x:\n    provider: p\n", `:2: invalid profile name "../x"`},
		{"bad store", "profiles:\n  a:\n    provider: p\n    key: vault\n", `:4: profile "a": key is kept in "vault"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := write(t, c.text, 0o600)
			_, err := Load(path, "", known)
			e := abxerr.From(err)
			if err == nil || e.Code != abxerr.InvalidConfig || e.Code.ExitCode() != 2 {
				t.Fatalf("error %v", err)
			}
			if !strings.HasPrefix(e.Message, path+":") || !strings.Contains(e.Message, c.want) || strings.Contains(e.Message, "\n") {
				t.Fatalf("message %q, want %s and %q", e.Message, path, c.want)
			}
		})
	}
}

func TestAFileOthersMayWriteIsRefused(t *testing.T) {
	if !runfile.ModesMatter {
		t.Skip("no mode bits here")
	}
	path := write(t, "profiles: {}\n", 0o666)
	_, err := Load(path, "", known)
	e := abxerr.From(err)
	if err == nil || !strings.Contains(e.Message, "others may write it") || !strings.Contains(e.Hint, "chmod 600 "+path) {
		t.Fatalf("%v (%s)", err, e.Hint)
	}
	// Readable by others is fine: the file holds no secret.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, "", known); err != nil {
		t.Fatal(err)
	}
}

// A file past the bound is refused whole, not parsed in part, and so is a
// directory where the file should be.
func TestAHugeFileOrADirectoryIsRefused(t *testing.T) {
	path := write(t, "# "+strings.Repeat("x", maxSize)+"\n", 0o600)
	_, err := Load(path, "", known)
	if e := abxerr.From(err); err == nil || e.Code != abxerr.InvalidConfig || !strings.Contains(e.Message, "more than a config file holds") {
		t.Fatalf("huge file: %v", err)
	}
	dir := t.TempDir()
	_, err = Load(dir, "", known)
	if e := abxerr.From(err); err == nil || e.Code != abxerr.InvalidConfig || !strings.HasPrefix(e.Message, "cannot read "+dir) {
		t.Fatalf("directory: %v", err)
	}
}

func TestUpdateWritesPrivatelyAndReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "abx", "config.yaml")
	err := Update(path, "", known, func(f *File) error {
		f.Profiles["a"] = &Profile{Provider: "p", Settings: map[string]string{"domain": "true", "protocol": "0755"}, Key: KeyFile}
		f.Current = "a"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runfile.ModesMatter && info.Mode().Perm() != want {
			t.Errorf("%s has mode %04o, want %04o", p, info.Mode().Perm(), want)
		}
	}
	f, err := Load(path, "", known)
	if err != nil {
		t.Fatal(err)
	}
	// Values YAML would read as other types come back as the text written.
	if p := f.Profiles["a"]; p.Settings["domain"] != "true" || p.Settings["protocol"] != "0755" || p.Key != KeyFile || f.Current != "a" {
		t.Fatalf("read back %+v", p)
	}
	// A change that fails leaves the file as it was.
	before, _ := os.ReadFile(path)
	if err := Update(path, "", known, func(f *File) error { f.Current = ""; return fmt.Errorf("no") }); err == nil {
		t.Fatal("the change's error was lost")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("the file changed:\n%s", after)
	}
}

// Writers take turns: 20 at once each add a profile and make it current,
// and every profile is there afterwards, in a file that reads.
func TestUpdatesAtOnceLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Update(path, "", known, func(f *File) error {
				name := fmt.Sprintf("p%02d", i)
				f.Profiles[name] = &Profile{Provider: "p", Settings: map[string]string{"domain": name + ".example.com"}}
				f.Current = name
				return nil
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := Load(path, "", known)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Profiles) != 20 || f.Profiles[f.Current] == nil {
		t.Fatalf("%d profiles, current %q", len(f.Profiles), f.Current)
	}
}

// A holder that keeps the lock (an abx stopped with Ctrl-Z midway) makes
// an update fail after lockWait, not wait for ever; the file is as it was.
func TestUpdateWaitsForAHeldLockWithinABound(t *testing.T) {
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 200 * time.Millisecond
	path := filepath.Join(t.TempDir(), "config.yaml")
	unlock, err := lock(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Update(path, "", known, func(*File) error { return nil }) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "another abx has held it") {
			t.Fatalf("update under a held lock: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the update waited on the held lock past its bound")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file was written under another's lock: %v", err)
	}
	unlock()
	if err := Update(path, "", known, func(*File) error { return nil }); err != nil {
		t.Fatalf("once let go: %v", err)
	}
}

func TestPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ABX_CONFIG": "/etc/abx.yaml", "HOME": "/h"}, "/etc/abx.yaml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/abx/config.yaml"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/abx/config.yaml"},
		{map[string]string{}, ""},
	} {
		if got := Path(env(c.env)); got != filepath.FromSlash(c.want) && !(c.want == "" && got == "") {
			t.Errorf("Path(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}
