package ingest

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unreadBytes returns a function telling how many bytes c has received
// that are not read yet (SIOCINQ), or nil when c is not a socket of its
// own: a TLS connection's received bytes are not its plaintext.
func unreadBytes(c net.Conn) func() int {
	raw := rawConn(c)
	if raw == nil {
		return nil
	}
	return func() int {
		n := 0
		_ = raw.Control(func(fd uintptr) {
			n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ)
		})
		return n
	}
}

// readable returns a function that waits, holding no buffer, until c has
// bytes to read, has ended or has failed, or nil when c is not a socket of
// its own: a TLS connection may hold plaintext its socket no longer does.
// The wait ends with an error when c is closed.
func readable(c net.Conn) func() error {
	raw := rawConn(c)
	if raw == nil {
		return nil
	}
	return func() error {
		var b [1]byte
		return raw.Read(func(fd uintptr) bool {
			// A peek of one byte: the poller is asked to wait only while
			// the socket would block.
			_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
			return !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR)
		})
	}
}

func rawConn(c net.Conn) syscall.RawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}
