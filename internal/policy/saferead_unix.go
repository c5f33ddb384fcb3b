//go:build unix

package policy

import "syscall"

// openNonblock keeps an open of a FIFO (or a device) from waiting for a
// writer; on a regular file it changes nothing.
const openNonblock = syscall.O_NONBLOCK
