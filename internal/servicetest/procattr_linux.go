package servicetest

import "syscall"

// sysProcAttr has the kernel kill the server if the test binary dies without
// running its cleanups, so no server outlives its test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
