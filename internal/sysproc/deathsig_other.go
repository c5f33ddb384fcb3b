//go:build unix && !linux

package sysproc

import "syscall"

func setDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
