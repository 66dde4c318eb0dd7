//go:build unix

package jupyter

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

// interpreters maps a python command found on PATH to the interpreter it
// really runs. Version managers (pyenv, asdf) put shell-script shims first on
// PATH that cost about 0.3 s of CPU per start, four times the interpreter's
// own start; a kernel is started per context, so the shim is asked once per
// process and kernels run the interpreter itself.
var interpreters struct {
	sync.Mutex                   // held while a shim is asked, so contexts starting together ask once
	exe        map[string]string // LookPath result -> resolved path
}

// interpreter returns the executable that running python starts.
func interpreter(python string) (string, error) {
	path, err := exec.LookPath(python)
	if err != nil {
		return "", fmt.Errorf("no %s interpreter on this machine: %w", python, err)
	}
	interpreters.Lock()
	defer interpreters.Unlock()
	if exe, ok := interpreters.exe[path]; ok {
		return exe, nil
	}
	exe := path
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-c", "import sys; sys.stdout.write(sys.executable)").Output()
	// A python that cannot say where it is (sys.executable empty, or an
	// error) is started as it was found: the kernel then reports why.
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		if _, err := exec.LookPath(s); err == nil {
			exe = s
		}
	}
	if interpreters.exe == nil {
		interpreters.exe = map[string]string{}
	}
	interpreters.exe[path] = exe
	return exe, nil
}
