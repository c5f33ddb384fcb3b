//go:build windows

package policy

import (
	"errors"
	"io/fs"
	"syscall"
)

// linkCount returns how many hard links fi's file has. Windows' FileInfo
// from Lstat does not carry the count; os.SameFile-style lookups would need
// to open the file, which Write never does before the rename, so a
// planted hard link is replaced by the rename rather than written through.
func linkCount(fs.FileInfo) uint64 { return 1 }

func isNotDir(err error) bool {
	return errors.Is(err, syscall.ERROR_PATH_NOT_FOUND) || errors.Is(err, syscall.Errno(267)) // ERROR_DIRECTORY
}
