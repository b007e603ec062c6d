//go:build !linux

package servicetest

import "syscall"

// sysProcAttr has nothing to add where the kernel offers no parent-death
// signal; cleanups still stop the server.
func sysProcAttr() *syscall.SysProcAttr { return nil }
