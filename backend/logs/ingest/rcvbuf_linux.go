package ingest

import "syscall"

// setRecvBuffer sets the socket's receive buffer: with SO_RCVBUFFORCE when
// the process has CAP_NET_ADMIN, so the configured size is not silently
// capped at net.core.rmem_max, else with SO_RCVBUF.
func setRecvBuffer(fd, n int) error {
	if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, n) == nil {
		return nil
	}
	return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
