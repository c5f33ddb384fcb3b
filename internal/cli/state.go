package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// DefaultSession is the session a call uses without --session or
// CDPKIT_SESSION.
const DefaultSession = "default"

var sessionName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// CheckSession reports whether name is a valid session name.
func CheckSession(name string) error {
	if !sessionName.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("session name %q: want 1-64 of A-Z a-z 0-9 _ . -", name)
	}
	return nil
}

// StateDir returns the directory sockets, state files, locks and logs live
// in: $CDPKIT_STATE_DIR, else $XDG_RUNTIME_DIR/cdpkit, else
// /tmp/cdpkit-<uid>. It creates it 0700 and refuses one that another user
// owns or that others may read or write, since its sockets drive a browser.
func StateDir() (string, error) {
	dir := os.Getenv("CDPKIT_STATE_DIR")
	if dir == "" {
		if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
			dir = filepath.Join(rt, "cdpkit")
		} else {
			dir = filepath.Join(os.TempDir(), fmt.Sprintf("cdpkit-%d", os.Getuid()))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("state dir %s is not a directory (a symlink is refused)", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("state dir %s belongs to uid %d, not to you (uid %d)", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("state dir %s has mode %04o; want 0700 (chmod 700 it)", dir, fi.Mode().Perm())
	}
	return dir, nil
}

// paths are a session's files in the state dir.
type paths struct {
	dir, socket, state, lock, log string
}

func sessionPaths(dir, session string) paths {
	p := filepath.Join(dir, session)
	return paths{dir: dir, socket: p + ".sock", state: p + ".json", lock: p + ".lock", log: p + ".log"}
}

// maxSocketPath is the longest unix socket path Linux accepts (sun_path
// less its terminating NUL).
const maxSocketPath = 107

// State is what a daemon records about itself for `cdpkit sessions`.
type State struct {
	Session  string    `json:"session"`
	PID      int       `json:"pid"`
	Started  time.Time `json:"started"`
	LastCall time.Time `json:"lastCall"`
	Flags    []string  `json:"flags"`
	Version  string    `json:"version"`
}

// writeState replaces the state file atomically.
func writeState(path string, s *State) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

func readState(path string) (*State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	return &s, nil
}

// alive reports whether pid is a running process (not a zombie).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill
	}
	// The state is the field after the parenthesized command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// lockFile takes an exclusive flock on path, waiting at most until the
// deadline. The returned func releases it.
func lockFile(path string, deadline time.Time) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another cdpkit call held it too long", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveSessions returns the state of every session whose daemon is alive,
// sorted by name.
func liveSessions(dir string) ([]*State, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*State
	for _, f := range files {
		s, err := readState(f)
		if err != nil || !alive(s.PID) {
			continue
		}
		if _, err := os.Stat(sessionPaths(dir, s.Session).socket); err != nil {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *State) int { return strings.Compare(a.Session, b.Session) })
	return out, nil
}
