//go:build linux

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A sandbox's init is this binary, taken over by package boxinit as it is
// initialised: before the libraries that build tables, caches and
// registries when they start, so that the init holds none of them (what
// keeps a hundred sandboxes' inits small, bench/sandboxes.sh). The order
// is Go's: by import path, each package once what it imports is ready.
func TestTheSandboxInitStartsBeforeTheLibraries(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, trace.String())
	}
	// init PACKAGE @T ms, T ms clock, N bytes, N allocs
	at, before := map[string]int{}, 0
	sc := bufio.NewScanner(&trace)
	for i := 0; sc.Scan(); i++ {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[0] != "init" {
			continue
		}
		at[f[1]] = i
		if _, ok := at["github.com/abx-dev/abx/internal/emulator/jail/boxinit"]; !ok {
			n, _ := strconv.Atoi(f[7])
			before += n
		}
	}
	boxinit, ok := at["github.com/abx-dev/abx/internal/emulator/jail/boxinit"]
	if !ok {
		t.Fatalf("boxinit is not in the trace:\n%s", trace.String())
	}
	for _, lib := range []string{"github.com/olekukonko/tablewriter/pkg/twwidth", "github.com/itchyny/gojq",
		"github.com/google/jsonschema-go/jsonschema", "google.golang.org/protobuf/reflect/protoregistry",
		"github.com/spf13/cobra", "net/http"} {
		if i, ok := at[lib]; ok && i < boxinit {
			t.Errorf("%s is initialised before boxinit", lib)
		}
	}
	if before > 512<<10 {
		t.Errorf("the packages initialised before boxinit allocate %d bytes", before)
	}
	t.Logf("%d bytes allocated by the packages initialised before boxinit", before)
}
