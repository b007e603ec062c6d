//go:build !linux

package ingest

import "syscall"

// setRecvBuffer sets the socket's receive buffer with SO_RCVBUF.
func setRecvBuffer(fd, n int) error {
	return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
