//go:build unix

package sysproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Alive reports whether a process with this pid exists.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// KillGroup sends SIGKILL to the process group led by pid (see
// [SetGroup]). The group outlives its leader while members remain, so it
// works after the leader has exited.
func KillGroup(pid int) error {
	if pid <= 0 {
		return os.ErrInvalid
	}
	return syscall.Kill(-pid, syscall.SIGKILL)
}

// Detach prepares cmd, before it starts, to run in a session of its own, so
// that a terminal's hangup or Ctrl-C does not reach it: the CLI's daemon.
func Detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// Umask sets the file mode creation mask and returns the previous one, so
// a unix socket is created private from its first instant.
func Umask(mask int) int { return syscall.Umask(mask) }

// TryLock takes an exclusive advisory lock on f without waiting. It
// returns ErrLocked when another process holds it. The lock is released by
// Unlock or when f is closed.
func TryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// Lock takes an exclusive advisory lock on f, waiting while another
// process holds it. Keep what it guards short: the wait has no deadline.
// The lock is released by Unlock, when f is closed, or when the process
// dies.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Unlock releases a lock TryLock or Lock took.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// CheckPrivateDir returns an error unless fi, an Lstat of dir, is a
// directory this user owns that no one else may read or write.
func CheckPrivateDir(dir string, fi os.FileInfo) error {
	if !fi.IsDir() {
		return &PrivateDirError{Dir: dir, Reason: "is not a directory (a symlink is refused)"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return &PrivateDirError{Dir: dir, Reason: fmt.Sprintf("belongs to uid %d, not to you (uid %d)", st.Uid, os.Getuid())}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return &PrivateDirError{Dir: dir, Reason: fmt.Sprintf("has mode %04o; want 0700 (chmod 700 it)", fi.Mode().Perm())}
	}
	return nil
}
