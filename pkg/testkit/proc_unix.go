//go:build unix

package testkit

import "syscall"

// detachedProcAttr puts the watchdog in its own process group so a Ctrl-C
// delivered to the test's group does not kill it before it cleans up.
func detachedProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
