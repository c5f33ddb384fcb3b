package browser

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// claimProfile makes sure no live browser holds dir, a user-data-dir the
// user chose, and creates it if missing. Chromium marks a profile it runs
// on with SingletonLock, a symlink to "host-pid" (Linux, macOS), or with
// lockfile, a file it keeps open without sharing (Windows). A lock whose
// process is gone is stale and removed, as Chromium itself would.
func claimProfile(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &driver.NoBrowserError{Reason: "creating the user-data-dir: " + err.Error(), Hint: "give a directory you can write"}
	}
	if runtime.GOOS == "windows" {
		lock := filepath.Join(dir, "lockfile")
		if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
			return &driver.ProfileInUseError{Dir: dir}
		}
		return nil
	}
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if err != nil {
		return nil // no lock
	}
	host, pid := parseSingletonLock(target)
	self, _ := os.Hostname()
	if host != "" && host != self {
		return &driver.ProfileInUseError{Dir: dir, PID: pid, Host: host}
	}
	if pid > 0 && sysproc.Alive(pid) {
		return &driver.ProfileInUseError{Dir: dir, PID: pid}
	}
	clearSingleton(dir)
	return nil
}

// parseSingletonLock splits SingletonLock's target, "host-pid" (the host
// name may itself contain dashes).
func parseSingletonLock(target string) (host string, pid int) {
	i := strings.LastIndexByte(target, '-')
	if i < 0 {
		return "", 0
	}
	pid, err := strconv.Atoi(target[i+1:])
	if err != nil {
		return "", 0
	}
	return target[:i], pid
}
