// Package safefile opens a file for reading only when it is a regular
// file, without ever blocking on a FIFO or a device: the leaf under
// policy's artifact reader and the few readers below policy (sysproc's
// sweep of a shared temp dir).
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular means a path names something other than a regular file
// (a FIFO, a device, a directory, a socket), or it changed while opened.
var ErrNotRegular = errors.New("safefile: not a regular file")

// Open opens path for reading when it is a regular file (a symlink to one
// is followed). The open uses Nonblock, so a FIFO swapped in after the
// check cannot block it, and the opened file must be the one checked.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", path, Kind(fi.Mode()), ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|Nonblock, 0)
	if err != nil {
		return nil, err
	}
	if err := Same(fi, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Same checks that f, just opened, is still the regular file fi described.
func Same(fi fs.FileInfo, f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || !os.SameFile(fi, st) {
		return fmt.Errorf("%s changed while it was being opened: %w", f.Name(), ErrNotRegular)
	}
	return nil
}

// Kind names what a non-regular file is: "a FIFO", "a directory", …
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return m.Type().String()
}
