//go:build !unix

package testkit

import "syscall"

func detachedProcAttr() *syscall.SysProcAttr { return nil }
