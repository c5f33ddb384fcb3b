package browser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// ErrProfileInUse means another browser holds the user-data-dir asked
// for. Chromium started on it would hand its command line to that browser
// and exit, so cdpkit refuses first.
var ErrProfileInUse = errors.New("browser: the profile is in use by another browser")

// ProfileInUseError names the profile and, where the OS lets Chromium
// record it, the holder.
type ProfileInUseError struct {
	Dir  string
	PID  int    // the holding browser's pid; 0 when unknown (Windows)
	Host string // the host that holds it, when not this one
}

func (e *ProfileInUseError) Error() string {
	switch {
	case e.Host != "":
		return fmt.Sprintf("browser: profile %s is in use by process %d on host %s", e.Dir, e.PID, e.Host)
	case e.PID > 0:
		return fmt.Sprintf("browser: profile %s is in use by another browser, pid %d", e.Dir, e.PID)
	}
	return fmt.Sprintf("browser: profile %s is in use by another browser", e.Dir)
}

func (e *ProfileInUseError) Unwrap() error { return ErrProfileInUse }

// claimProfile makes sure no live browser holds dir, a user-data-dir the
// user chose, and creates it if missing. Chromium marks a profile it runs
// on with SingletonLock, a symlink to "host-pid" (Linux, macOS), or with
// lockfile, a file it keeps open without sharing (Windows). A lock whose
// process is gone is stale and removed, as Chromium itself would.
func claimProfile(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &NoBrowserError{Reason: "creating the user-data-dir: " + err.Error(), Hint: "give a directory you can write"}
	}
	if runtime.GOOS == "windows" {
		lock := filepath.Join(dir, "lockfile")
		if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
			return &ProfileInUseError{Dir: dir}
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
		return &ProfileInUseError{Dir: dir, PID: pid, Host: host}
	}
	if pid > 0 && sysproc.Alive(pid) {
		return &ProfileInUseError{Dir: dir, PID: pid}
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
