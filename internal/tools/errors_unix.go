//go:build unix

package tools

import (
	"errors"
	"syscall"
)

func isQuota(err error) bool    { return errors.Is(err, syscall.EDQUOT) }
func isReadOnly(err error) bool { return errors.Is(err, syscall.EROFS) }
