//go:build unix

package policy

import (
	"errors"
	"io/fs"
	"syscall"
)

// linkCount returns how many hard links fi's file has.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
