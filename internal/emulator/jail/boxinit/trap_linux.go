//go:build linux

package boxinit

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/emulator/jail/rtnl"
)

// A box whose connections out are carried (BoxSpec.Carry) has a network
// of its own like any other, with its loopback alone, so that nothing it
// sends reaches anything by itself. The init traps every connect(2) of the
// box (a seccomp filter whose answer is the emulator's: SECCOMP_RET_USER_
// NOTIF) before it starts a command, and hands the trap to the emulator
// (OpTrap), which connects on the box's behalf, from this machine's
// network, where its egress rules let it, and puts that socket in place of
// the box's. A connect the emulator lets through stays in the box's
// network: nothing is there but its loopback, so the filter is a way out,
// never a way around.
//
// The box's names are resolved by this machine's resolvers: the init
// puts their addresses on the box's loopback and binds a UDP socket at
// port 53 of each, which it hands over with the trap; the emulator relays
// what comes to them.

// trapConnect installs the filter on every thread of the init (its
// commands inherit it) and returns its listener.
func trapConnect() (*os.File, error) {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no seccomp architecture for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	// struct seccomp_data: nr at 0, arch at 4. Another architecture's
	// calls (a 32-bit program's) are let through: they stay in the box's
	// network.
	prog := []unix.SockFilter{
		{Code: ld, K: 4},
		{Code: jeq, K: arch, Jt: 0, Jf: 3},
		{Code: ld, K: 0},
		{Code: jeq, K: unix.SYS_CONNECT, Jt: 0, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_TSYNC | unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH)
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return nil, fmt.Errorf("the box's connect trap: %w", errno)
	}
	return os.NewFile(fd, "seccomp"), nil
}

// auditArch is seccomp's name of this architecture's system calls.
var auditArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"ppc64le": unix.AUDIT_ARCH_PPC64LE,
	"s390x":   unix.AUDIT_ARCH_S390X,
}

// relays binds, in the box's network, a UDP socket at port 53 of each
// resolver, first putting its address on the box's loopback where it is
// not a loopback address already. A resolver that cannot be had is left
// out: the box resolves through the others.
func relays(resolvers [][]byte) []*os.File {
	var files []*os.File
	for _, a := range resolvers {
		var domain int
		var sa unix.Sockaddr
		switch len(a) {
		case 4:
			domain, sa = unix.AF_INET, &unix.SockaddrInet4{Port: 53, Addr: [4]byte(a)}
		case 16:
			domain, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: 53, Addr: [16]byte(a)}
		default:
			continue
		}
		if !isLoopback(a) && addLoopbackAddr(a) != nil {
			continue
		}
		fd, err := unix.Socket(domain, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if err := unix.Bind(fd, sa); err != nil {
			_ = unix.Close(fd)
			continue
		}
		files = append(files, os.NewFile(uintptr(fd), "resolver"))
	}
	return files
}

// isLoopback tells 127.0.0.0/8 and ::1, where a loopback already
// answers.
func isLoopback(a []byte) bool {
	if len(a) == 4 {
		return a[0] == 127
	}
	return string(a) == string([]byte{15: 1})
}

// addLoopbackAddr puts a on the loopback, as a host address (/32, /128).
func addLoopbackAddr(a []byte) error { return rtnl.AddAddr(1, a, 8*len(a)) }
