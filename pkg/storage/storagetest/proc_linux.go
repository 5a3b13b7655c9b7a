//go:build linux

package storagetest

import "syscall"

// serverProcAttr makes the kernel kill the server if the test process dies
// without running its cleanups (timeout panic, SIGKILL), so no server is
// left behind.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
