//go:build linux

package jail_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
)

// orphanEnv marks the copy of this test binary that starts a box and is
// then killed, as an emulator may be, without killing its box.
const orphanEnv = "ABX_TEST_ORPHAN_BOX"

// A box whose emulator ends without killing it (killed itself, or a test
// binary done with it) ends, and removes its socket and its directory: the
// machine's temporary directory does not fill with them.
func TestABoxWhoseEmulatorEndsLeavesNothing(t *testing.T) {
	if os.Getenv(orphanEnv) == "1" {
		own := os.Getenv("ABX_TEST_ORPHAN_DIR")
		spec := jail.BoxSpec{Top: filepath.Join(own, "top"), Layers: filepath.Join(own, "layers"), Hide: []string{own}}
		if _, err := jail.StartBox(spec, nil); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute) // until killed
		return
	}
	t.Parallel()
	jailtest.Need(t)
	tmp, own := t.TempDir(), t.TempDir()
	if err := jail.Prepare(filepath.Join(own, "top"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run", "^TestABoxWhoseEmulatorEndsLeavesNothing$", "-test.count=1")
	cmd.Env = append(os.Environ(), orphanEnv+"=1", "ABX_TEST_ORPHAN_DIR="+own, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the box did not start: %q", line)
	}
	boxes := func() []string {
		names, _ := filepath.Glob(filepath.Join(tmp, "abx-box-*"))
		return names
	}
	if len(boxes()) != 1 {
		t.Fatalf("the box's directory: %q", boxes())
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	waitFor(t, "the box's directory removed", 5*time.Second, func() bool { return len(boxes()) == 0 })
	if left := boxes(); len(left) != 0 {
		t.Errorf("left behind: %s", strings.Join(left, " "))
	}
}
