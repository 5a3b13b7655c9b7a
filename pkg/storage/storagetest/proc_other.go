//go:build !linux

package storagetest

import "syscall"

func serverProcAttr() *syscall.SysProcAttr { return nil }
