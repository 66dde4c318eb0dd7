//go:build linux

package jailtest

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail/rtnl"
)

// hostEnv marks the copy of a test binary that InTestNetwork starts.
const hostEnv = "ABX_TEST_NETWORK"

// TestHost is the address a test host has in the network InTestNetwork
// makes: nothing outside that network has it. SilentHost is an address
// of that network that answers nothing: a connection to it waits for an
// answer to its SYN that never comes (it lies behind a bridge with no
// port).
var (
	TestHost   = netip.MustParseAddr("10.99.0.1")
	SilentHost = netip.MustParseAddr("10.99.1.7")
)

// setUpTestNetwork gives the new network namespace its loopback, with
// TestHost on it, and the bridge SilentHost lies behind. A benchmark is
// called more than once: what is there already is kept.
func setUpTestNetwork() error {
	if err := rtnl.Up("lo"); err != nil {
		return err
	}
	if err := rtnl.AddAddr(1, TestHost.AsSlice(), 32); err != nil && !errors.Is(err, syscall.EEXIST) {
		return err
	}
	const bridge = "abx-silent"
	if err := rtnl.AddLink(bridge, "bridge"); errors.Is(err, syscall.EEXIST) {
		return nil
	} else if err != nil {
		return fmt.Errorf("a bridge for the silent host: %w", err)
	}
	if err := rtnl.Up(bridge); err != nil {
		return err
	}
	ifc, err := net.InterfaceByName(bridge)
	if err != nil {
		return err
	}
	return rtnl.AddAddr(ifc.Index, netip.MustParseAddr("10.99.1.1").AsSlice(), 24)
}

// InTestNetwork runs the test t in a network namespace of its own, where
// TestHost is an address of this machine (on its loopback, beside
// 127.0.0.1) that a server may listen on (port 53 too), and nothing else is in reach:
// a sandbox's connections out of its box reach only the test's servers.
// Called in the test binary as it was started, it runs the test again in
// such a namespace, fails t if that copy fails, and returns false: the
// caller returns. In the copy it returns true. A benchmark's copy prints
// its figures, and the benchmark as started is skipped.
func InTestNetwork(t testing.TB) bool {
	t.Helper()
	if os.Getenv(hostEnv) == "1" {
		if err := setUpTestNetwork(); err != nil {
			t.Fatal(err)
		}
		return true
	}
	Need(t)
	args := []string{"-test.run=^" + t.Name() + "$", "-test.count=1", "-test.v"}
	_, bench := t.(*testing.B)
	if bench {
		args = []string{"-test.run=^$", "-test.bench=^" + t.Name() + "$", "-test.benchmem"}
		for _, name := range []string{"test.benchtime", "test.count"} {
			if f := flag.Lookup(name); f != nil {
				args = append(args, "-"+name+"="+f.Value.String())
			}
		}
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), hostEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if os.Geteuid() != 0 {
		// A user namespace owns the network namespace; the test keeps
		// its uid (the emulator it runs decides by it) and may set the
		// network up.
		uid, gid := os.Geteuid(), os.Getegid()
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		cmd.SysProcAttr.AmbientCaps = []uintptr{capNetBindService, capNetAdmin}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a network of its own: %v\n%s", t.Name(), err, out)
	}
	if bench {
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "Benchmark") {
				fmt.Println(line)
			}
		}
		t.Skip("measured in a network of its own (the lines above)")
	}
	t.Logf("in a network of its own:\n%s", out)
	return false
}

const (
	capNetBindService = 10 // a resolver's port 53
	capNetAdmin       = 12
)
