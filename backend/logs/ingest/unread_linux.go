package ingest

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unreadBytes returns a function telling how many bytes c has received
// that are not read yet (SIOCINQ), or nil when c is not a socket of its
// own: a TLS connection's received bytes are not its plaintext.
func unreadBytes(c net.Conn) func() int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
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
