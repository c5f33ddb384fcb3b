//go:build windows

package tools

import (
	"errors"
	"syscall"
)

// ERROR_DISK_FULL and ERROR_WRITE_PROTECT.
func isQuota(err error) bool    { return errors.Is(err, syscall.Errno(112)) }
func isReadOnly(err error) bool { return errors.Is(err, syscall.Errno(19)) }
