//go:build linux

// Package rtnl speaks the little of rtnetlink that a box's init and the
// tests of boxes need: an interface up, an address on it, an interface of
// a kind. It imports nothing but the system calls, as the init must
// (package boxinit).
package rtnl

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// Up brings the interface name up (a new namespace's loopback is down).
func Up(name string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer func() { _ = unix.Close(fd) }()
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// AddAddr puts the address a (4 or 16 bytes) with its prefix length on
// the interface of index (the loopback's is 1).
func AddAddr(index int, a []byte, prefix int) error {
	family := unix.AF_INET
	if len(a) == 16 {
		family = unix.AF_INET6
	}
	scope := byte(unix.RT_SCOPE_UNIVERSE)
	if index == 1 {
		scope = unix.RT_SCOPE_HOST
	}
	body := make([]byte, unix.SizeofIfAddrmsg)
	body[0], body[1], body[3] = byte(family), byte(prefix), scope
	binary.NativeEndian.PutUint32(body[4:], uint32(index))
	body = append(body, attr(unix.IFA_LOCAL, a)...)
	body = append(body, attr(unix.IFA_ADDRESS, a)...)
	return request(unix.RTM_NEWADDR, unix.NLM_F_CREATE|unix.NLM_F_EXCL, body)
}

// AddLink makes an interface of kind ("bridge") named name, down.
func AddLink(name, kind string) error {
	body := make([]byte, unix.SizeofIfInfomsg)
	body = append(body, attr(unix.IFLA_IFNAME, append([]byte(name), 0))...)
	body = append(body, attr(unix.IFLA_LINKINFO, attr(unix.IFLA_INFO_KIND, []byte(kind)))...)
	return request(unix.RTM_NEWLINK, unix.NLM_F_CREATE|unix.NLM_F_EXCL, body)
}

// attr is one rtnetlink attribute, padded to 4 bytes.
func attr(kind uint16, value []byte) []byte {
	n := unix.SizeofRtAttr + len(value)
	b := make([]byte, (n+3)&^3)
	binary.NativeEndian.PutUint16(b[0:], uint16(n))
	binary.NativeEndian.PutUint16(b[2:], kind)
	copy(b[unix.SizeofRtAttr:], value)
	return b
}

// request sends one request and reads its acknowledgement.
func request(kind, flags uint16, body []byte) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(fd) }()
	msg := make([]byte, unix.SizeofNlMsghdr, unix.SizeofNlMsghdr+len(body))
	binary.NativeEndian.PutUint32(msg[0:], uint32(unix.SizeofNlMsghdr+len(body)))
	binary.NativeEndian.PutUint16(msg[4:], kind)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|flags)
	binary.NativeEndian.PutUint32(msg[8:], 1) // sequence
	msg = append(msg, body...)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	ack := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, ack, 0)
	if err != nil {
		return err
	}
	// The answer is an NLMSG_ERROR whose error is 0 on success.
	if n < unix.SizeofNlMsghdr+4 || binary.NativeEndian.Uint16(ack[4:]) != unix.NLMSG_ERROR {
		return fmt.Errorf("rtnetlink answered %d bytes", n)
	}
	if e := int32(binary.NativeEndian.Uint32(ack[unix.SizeofNlMsghdr:])); e != 0 {
		return unix.Errno(-e)
	}
	return nil
}
