package sysproc

import "errors"

// ErrLocked is returned by TryLock when another process holds the lock.
var ErrLocked = errors.New("sysproc: locked by another process")

// PrivateDirError says why a directory that must be private is not.
type PrivateDirError struct {
	Dir, Reason string
}

func (e *PrivateDirError) Error() string { return "directory " + e.Dir + " " + e.Reason }
