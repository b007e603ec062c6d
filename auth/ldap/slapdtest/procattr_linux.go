package slapdtest

import "syscall"

// sysProcAttr has the kernel kill slapd if the test binary dies without
// running its cleanups (a panic, a -timeout), so no server outlives its test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
