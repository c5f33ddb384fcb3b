//go:build windows

package sysproc

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// Alive reports whether a process with this pid exists and has not exited.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// Access denied means it exists but belongs to someone else.
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	const stillActive = 259
	return code == stillActive
}

// KillGroup ends the process pid and every process it started, with
// taskkill's tree kill: Windows has no process groups to signal.
func KillGroup(pid int) error {
	if pid <= 0 {
		return os.ErrInvalid
	}
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// Detach prepares cmd, before it starts, to run without the caller's
// console, so that closing the terminal or Ctrl-C does not reach it.
func Detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS
}

// Umask does nothing on Windows, where files and sockets take the ACL of
// their directory (the user's own profile directory for cdpkit's state).
func Umask(mask int) int { return 0 }

// TryLock takes an exclusive lock on f without waiting. It returns
// ErrLocked when another process holds it. The lock is released by Unlock
// or when f is closed.
func TryLock(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	return err
}

// Lock takes an exclusive lock on f, waiting while another process holds
// it. Keep what it guards short: the wait has no deadline. The lock is
// released by Unlock, when f is closed, or when the process dies.
func Lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}

// Unlock releases a lock TryLock or Lock took.
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// CheckPrivateDir returns an error unless fi is a directory. Windows
// reports no unix owner or mode bits; cdpkit's state lives under the
// user's own profile (LocalAppData), whose ACL admits only that user.
func CheckPrivateDir(dir string, fi os.FileInfo) error {
	if !fi.IsDir() {
		return &PrivateDirError{Dir: dir, Reason: "is not a directory (a symlink is refused)"}
	}
	return nil
}
