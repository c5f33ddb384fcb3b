package lease

import "os"

// mkfifo makes a directory: Windows has no FIFOs in the file system.
func mkfifo(p string) error { return os.Mkdir(p, 0o700) }
