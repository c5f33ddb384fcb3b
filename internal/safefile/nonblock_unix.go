//go:build unix

package safefile

import "syscall"

// Nonblock keeps an open of a FIFO (or a device) from waiting for a
// writer; on a regular file it changes nothing.
const Nonblock = syscall.O_NONBLOCK
