//go:build linux

package jail

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
)

// A box whose connections out are carried (BoxSpec.Carry) traps each
// connect(2) of its processes (package boxinit). The carrier answers
// each: a TCP connection to an address outside the box is made here, in
// this machine's network, where the box's Egress lets it, and the socket made takes the place of the box's own
// (SECCOMP_IOCTL_NOTIF_ADDFD), so that the program goes on with a socket
// of this machine's, as fast as any; everything else (the box's loopback,
// Unix sockets, UDP, which reaches only the box's resolvers) goes on in
// the box's network. The carrier connects with its own copy of the
// address, never the program's memory read twice: what a program changes
// after it is asked about cannot take it anywhere the rules refused.

// seccomp's user-notification structures and ioctls (linux/seccomp.h),
// as the generic ioctl encoding of amd64, arm64 and riscv64 gives them.
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

type seccompAddfd struct {
	ID         uint64
	Flags      uint32
	Srcfd      uint32
	Newfd      uint32
	NewfdFlags uint32
}

const (
	notifRecv    = unix.SECCOMP_IOCTL_NOTIF_RECV
	notifSend    = unix.SECCOMP_IOCTL_NOTIF_SEND
	notifIDValid = 1<<30 | 8<<16 | '!'<<8 | 2  // _IOW('!', 2, __u64)
	notifAddfd   = 1<<30 | 24<<16 | '!'<<8 | 3 // _IOW('!', 3, struct seccomp_notif_addfd)
	notifFlags   = 1<<30 | 8<<16 | '!'<<8 | 4  // _IOW('!', 4, __u64): SECCOMP_IOCTL_NOTIF_SET_FLAGS
	// notifContinue lets the call go on as the program made it.
	notifContinue = 1
)

// connectWait bounds a connection the carrier makes for a program that
// waits for it (a blocking socket): about as long as the kernel's own
// retries of a SYN take.
const connectWait = 130 * time.Second

// carrier answers one box's trapped connects.
type carrier struct {
	trap      *os.File // non-blocking, served by the runtime's poller
	raw       syscall.RawConn
	out       Egress
	resolvers map[netip.Addr]bool
	done      <-chan struct{}
	// making bounds the connections the carrier makes for the box at
	// once (each holds a socket here until it is handed over): a box
	// that asks for more waits in its connects.
	making chan struct{}
}

// carriedAtOnce bounds a box's connections being made at once.
const carriedAtOnce = 256

// newCarrier takes the trap the init handed over.
func newCarrier(trap *os.File, out Egress, resolvers [][]byte, done <-chan struct{}) (*carrier, error) {
	// The descriptor received is in blocking mode, which the runtime's
	// poller would not take: a non-blocking copy is.
	fd, err := unix.FcntlInt(trap.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = trap.Close()
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	c := &carrier{trap: os.NewFile(uintptr(fd), "seccomp"), out: out, resolvers: map[netip.Addr]bool{}, done: done,
		making: make(chan struct{}, carriedAtOnce)}
	if c.raw, err = c.trap.SyscallConn(); err != nil {
		_ = c.trap.Close()
		return nil, err
	}
	for _, r := range resolvers {
		if a, ok := netip.AddrFromSlice(r); ok {
			c.resolvers[a.Unmap()] = true
		}
	}
	// A program waits for each answer: the kernel (6.6 on) then wakes
	// the carrier on the program's processor and switches to it. Where
	// it cannot, the answers come all the same.
	sync := uint64(unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	_ = c.ctl(notifFlags, unsafe.Pointer(&sync))
	return c, nil
}

// pidfdThread opens a pidfd of a thread that leads no thread group
// (PIDFD_THREAD, Linux 6.9: O_EXCL).
const pidfdThread = unix.O_EXCL

// openThread opens a pidfd of the thread that made a call: the one a
// notification names, often not its process's first thread (a Go
// program's, a Java one's connect). Before Linux 6.9 a pidfd is of a
// process only: its thread group's, which shares its descriptors.
func openThread(tid int) (int, error) {
	fd, err := unix.PidfdOpen(tid, pidfdThread)
	if !errors.Is(err, unix.EINVAL) {
		return fd, err
	}
	if fd, err = unix.PidfdOpen(tid, 0); !errors.Is(err, unix.EINVAL) {
		return fd, err
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return -1, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			tgid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1, err
			}
			return unix.PidfdOpen(tgid, 0)
		}
	}
	return -1, unix.ESRCH
}

// ctl makes one ioctl on the trap, unless it is closed (the box killed).
func (c *carrier) ctl(req uint, arg unsafe.Pointer) error {
	var ierr error
	if err := c.raw.Control(func(fd uintptr) { ierr = ioctl(int(fd), req, arg) }); err != nil {
		return err
	}
	return ierr
}

// serve reads the trap's notifications until the box ends (the trap
// hangs up once no process of the box is left, or is closed) and answers
// each on its own: a program waiting for a slow connection holds up no
// other.
func (c *carrier) serve() {
	raw := c.raw
	for {
		var n seccompNotif
		var rerr error
		err := raw.Read(func(fd uintptr) bool {
			// RECV blocks whatever the descriptor's flags: it is asked
			// only once poll says a notification waits.
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if k, _ := unix.Poll(p, 0); k == 0 {
				return false
			}
			if p[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 && p[0].Revents&unix.POLLIN == 0 {
				rerr = io.EOF
				return true
			}
			n = seccompNotif{}
			rerr = ioctl(int(fd), notifRecv, unsafe.Pointer(&n))
			return true
		})
		switch {
		case err != nil, errors.Is(rerr, io.EOF):
			return
		case rerr != nil:
			// A notification withdrawn (its program interrupted) or
			// one this emulator may not read: the next.
			continue
		}
		// Most connects are the box's own (its loopback, a Unix
		// socket): answered here, at once; the others on their own.
		fd, dst, ok := c.destination(n)
		out, dns := c.outward(dst)
		if !ok || !out {
			c.respond(seccompResp{ID: n.ID, Flags: notifContinue})
			continue
		}
		go c.answer(n, fd, dst, dns)
	}
}

// outward tells whether a connect leads out of the box: to an address
// beyond its loopback, or to a resolver's port 53 (dns).
func (c *carrier) outward(dst netip.AddrPort) (out, dns bool) {
	a := dst.Addr().Unmap()
	dns = c.resolvers[a] && dst.Port() == 53
	return !a.IsLoopback() && !a.IsUnspecified() || dns, dns
}

// answer decides a connect out of the box: refuse it, or carry it (a
// socket that is no TCP one goes on in the box).
func (c *carrier) answer(n seccompNotif, fd int, dst netip.AddrPort, dns bool) {
	select {
	case c.making <- struct{}{}:
		defer func() { <-c.making }()
	case <-c.done:
		return
	}
	a := dst.Addr().Unmap()
	pidfd, err := openThread(int(n.Pid))
	if err != nil {
		c.respond(seccompResp{ID: n.ID, Flags: notifContinue})
		return
	}
	// The address was read from a pid's memory, and the pidfd opened of
	// a pid: both are the program's only if its call is still the one
	// notified (a pid is reused once its process has gone).
	id := n.ID
	if c.ctl(notifIDValid, unsafe.Pointer(&id)) != nil {
		_ = unix.Close(pidfd)
		return
	}
	sock, err := unix.PidfdGetfd(pidfd, fd, 0)
	_ = unix.Close(pidfd)
	if err != nil {
		c.respond(seccompResp{ID: n.ID, Flags: notifContinue})
		return
	}
	kind, domain, proto, opts := describe(sock)
	if kind != unix.SOCK_STREAM || (domain == unix.AF_INET) != dst.Addr().Is4() ||
		(domain != unix.AF_INET && domain != unix.AF_INET6) {
		_ = unix.Close(sock)
		c.respond(seccompResp{ID: n.ID, Flags: notifContinue})
		return
	}
	if !dns {
		if err := c.out(netip.AddrPortFrom(a, dst.Port())); err != nil {
			_ = unix.Close(sock)
			c.respond(seccompResp{ID: n.ID, Error: -int32(unix.EPERM)})
			return
		}
	}
	if isMachines(sock) {
		// A socket the carrier put in place already, connected again:
		// a program polling its connection (EALREADY, then EISCONN),
		// or trying again after a failure. The kernel answers, on that
		// very socket, with the carrier's copy of the address (the
		// program may change its own after it was read).
		resp := seccompResp{ID: n.ID}
		if err := unix.Connect(sock, sockaddr(domain, dst)); err != nil {
			resp.Error = -int32(errnoOf(err))
		}
		_ = unix.Close(sock)
		c.respond(resp)
		return
	}
	_ = unix.Close(sock)
	flags := fdFlags(int(n.Pid), fd)
	host, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		c.respond(seccompResp{ID: n.ID, Error: -int32(errnoOf(err))})
		return
	}
	opts.apply(host)
	err = unix.Connect(host, sockaddr(domain, dst))
	if err != nil && !errors.Is(err, unix.EINPROGRESS) {
		_ = unix.Close(host)
		c.respond(seccompResp{ID: n.ID, Error: -int32(errnoOf(err))})
		return
	}
	resp, src := seccompResp{ID: n.ID}, host
	switch {
	case err == nil:
	case flags&unix.O_NONBLOCK != 0:
		// The program waits for the connection itself, as it would
		// have for its own.
		resp.Error = -int32(unix.EINPROGRESS)
	default:
		// The program waits in its call: the carrier waits for it,
		// through the runtime's poller.
		f := os.NewFile(uintptr(host), "carried")
		defer func() { _ = f.Close() }()
		if err := c.await(f, n.ID); err != nil {
			c.respond(seccompResp{ID: n.ID, Error: -int32(errnoOf(err))})
			return
		}
		src, host = int(f.Fd()), -1
	}
	if host >= 0 {
		defer func() { _ = unix.Close(host) }()
	}
	if flags&unix.O_NONBLOCK == 0 {
		// In blocking mode, as the program's socket was.
		if err := unix.SetNonblock(src, false); err != nil {
			c.respond(seccompResp{ID: n.ID, Error: -int32(errnoOf(err))})
			return
		}
	}
	var newFlags uint32
	if flags&unix.O_CLOEXEC != 0 {
		newFlags = unix.O_CLOEXEC
	}
	add := seccompAddfd{ID: n.ID, Flags: unix.SECCOMP_ADDFD_FLAG_SETFD, Srcfd: uint32(src), Newfd: uint32(fd), NewfdFlags: newFlags}
	if err := c.ctl(notifAddfd, unsafe.Pointer(&add)); err != nil {
		// Gone meanwhile, or out of descriptors: it gets the error.
		c.respond(seccompResp{ID: n.ID, Error: -int32(errnoOf(err))})
		return
	}
	c.respond(resp)
}

// sockaddr is dst for a socket of domain.
func sockaddr(domain int, dst netip.AddrPort) unix.Sockaddr {
	if domain == unix.AF_INET6 {
		return &unix.SockaddrInet6{Port: int(dst.Port()), Addr: dst.Addr().As16()}
	}
	return &unix.SockaddrInet4{Port: int(dst.Port()), Addr: dst.Addr().Unmap().As4()}
}

// machineNet is the cookie of this process's network namespace, where the
// carrier makes its sockets (0 where the kernel cannot tell, before 5.14).
var machineNet = sync.OnceValue(func() uint64 {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer func() { _ = unix.Close(fd) }()
	cookie, _ := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
	return cookie
})

// isMachines tells a socket of this machine's network (one the carrier
// made) from one of the box's.
func isMachines(sock int) bool {
	cookie, err := unix.GetsockoptUint64(sock, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
	return err == nil && cookie != 0 && cookie == machineNet()
}

// destination reads the connect's descriptor and address: ok only for an
// IPv4 or IPv6 address. What it read is the call's only while the call
// is still the one notified (answer checks before it acts on it).
func (c *carrier) destination(n seccompNotif) (fd int, dst netip.AddrPort, ok bool) {
	size := n.Data.Args[2]
	if size < 2 || size > 128 {
		return 0, dst, false
	}
	buf := make([]byte, size)
	local := []unix.Iovec{{Base: &buf[0], Len: size}}
	remote := []unix.RemoteIovec{{Base: uintptr(n.Data.Args[1]), Len: int(size)}}
	if k, err := unix.ProcessVMReadv(int(n.Pid), local, remote, 0); err != nil || k != int(size) {
		return 0, dst, false
	}
	port := binary.BigEndian.Uint16(buf[2:4])
	switch binary.NativeEndian.Uint16(buf) {
	case unix.AF_INET:
		if size < 8 {
			return 0, dst, false
		}
		dst = netip.AddrPortFrom(netip.AddrFrom4([4]byte(buf[4:8])), port)
	case unix.AF_INET6:
		if size < 24 {
			return 0, dst, false
		}
		dst = netip.AddrPortFrom(netip.AddrFrom16([16]byte(buf[8:24])), port)
	default:
		return 0, dst, false
	}
	return int(n.Data.Args[0]), dst, true
}

// await waits for a connection the program waits for, within
// connectWait, and gives up when the program does (its call withdrawn).
func (c *carrier) await(f *os.File, id uint64) error {
	deadline := time.Now().Add(connectWait)
	for {
		next := time.Now().Add(time.Second)
		if next.After(deadline) {
			next = deadline
		}
		_ = f.SetWriteDeadline(next)
		err := boxinit.AwaitConnect(f)
		switch {
		case !errors.Is(err, os.ErrDeadlineExceeded):
			return err
		case !time.Now().Before(deadline):
			return unix.ETIMEDOUT
		}
		check := id
		if c.ctl(notifIDValid, unsafe.Pointer(&check)) != nil {
			return unix.EINTR
		}
		select {
		case <-c.done:
			return unix.ECONNABORTED
		default:
		}
	}
}

func (c *carrier) respond(r seccompResp) {
	_ = c.ctl(notifSend, unsafe.Pointer(&r))
}

// sockOpts are the options of the box's socket that the one made for it
// takes over: what a program sets before it connects (TCP_NODELAY,
// keepalives, timeouts) and expects to hold after.
type sockOpts struct {
	ints     [][3]int // level, option, value
	timeouts []struct {
		opt int
		tv  unix.Timeval
	}
	linger *unix.Linger
}

// carriedInts are the integer options carried over; keepalive's timings
// only where keepalive is on. (Each is a system call: the list holds what
// a client sets before it connects and relies on after.)
var carriedInts = [][2]int{
	{unix.IPPROTO_TCP, unix.TCP_NODELAY},
	{unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT},
	{unix.SOL_SOCKET, unix.SO_KEEPALIVE},
}

var keepaliveInts = [][2]int{
	{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE},
	{unix.IPPROTO_TCP, unix.TCP_KEEPINTVL},
	{unix.IPPROTO_TCP, unix.TCP_KEEPCNT},
}

// describe reads the box's socket: its type, domain, protocol and the
// options to carry over.
func describe(sock int) (kind, domain, proto int, opts sockOpts) {
	kind, _ = unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	domain, _ = unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	proto, _ = unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if kind != unix.SOCK_STREAM {
		return kind, domain, proto, opts
	}
	for _, o := range carriedInts {
		if v, err := unix.GetsockoptInt(sock, o[0], o[1]); err == nil && v != 0 {
			opts.ints = append(opts.ints, [3]int{o[0], o[1], v})
			if o[1] == unix.SO_KEEPALIVE {
				for _, k := range keepaliveInts {
					if v, err := unix.GetsockoptInt(sock, k[0], k[1]); err == nil {
						opts.ints = append(opts.ints, [3]int{k[0], k[1], v})
					}
				}
			}
		}
	}
	if domain == unix.AF_INET6 {
		if v, err := unix.GetsockoptInt(sock, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY); err == nil {
			opts.ints = append(opts.ints, [3]int{unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, v})
		}
	}
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if tv, err := unix.GetsockoptTimeval(sock, unix.SOL_SOCKET, opt); err == nil && (tv.Sec != 0 || tv.Usec != 0) {
			opts.timeouts = append(opts.timeouts, struct {
				opt int
				tv  unix.Timeval
			}{opt, *tv})
		}
	}
	if l, err := unix.GetsockoptLinger(sock, unix.SOL_SOCKET, unix.SO_LINGER); err == nil && l.Onoff != 0 {
		opts.linger = l
	}
	return kind, domain, proto, opts
}

func (o sockOpts) apply(sock int) {
	for _, v := range o.ints {
		_ = unix.SetsockoptInt(sock, v[0], v[1], v[2])
	}
	for _, t := range o.timeouts {
		_ = unix.SetsockoptTimeval(sock, unix.SOL_SOCKET, t.opt, &t.tv)
	}
	if o.linger != nil {
		_ = unix.SetsockoptLinger(sock, unix.SOL_SOCKET, unix.SO_LINGER, o.linger)
	}
}

// fdFlags are the open flags of the program's descriptor (O_NONBLOCK,
// O_CLOEXEC), as /proc tells them; none where it cannot be read.
func fdFlags(pid, fd int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0
	}
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "flags:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return int(n)
		}
	}
	return 0
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EIO
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// machineResolvers are the nameservers of this machine's resolv.conf.
func machineResolvers() [][]byte {
	b, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		return nil
	}
	var out [][]byte
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) >= 2 && f[0] == "nameserver" {
			if a, err := netip.ParseAddr(f[1]); err == nil && a.Zone() == "" {
				out = append(out, a.AsSlice())
			}
		}
	}
	return out
}
