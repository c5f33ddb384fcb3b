package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
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
// in: $CDPKIT_STATE_DIR, else $XDG_RUNTIME_DIR/cdpkit, else on Linux
// /tmp/cdpkit-<uid>, else the user's cache dir (os.UserCacheDir: macOS
// ~/Library/Caches/cdpkit, Windows %LocalAppData%\cdpkit). It creates it
// 0700 and refuses one that another user owns or that others may read or
// write, since its sockets drive a browser.
func StateDir() (string, error) {
	dir, err := defaultStateDir(runtime.GOOS, os.Getenv, os.UserCacheDir)
	if err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	if err := sysproc.CheckPrivateDir(dir, fi); err != nil {
		return "", fmt.Errorf("state %w", err)
	}
	return dir, nil
}

// defaultStateDir picks the state dir for goos from the environment.
func defaultStateDir(goos string, getenv func(string) string, cacheDir func() (string, error)) (string, error) {
	if dir := getenv("CDPKIT_STATE_DIR"); dir != "" {
		return dir, nil
	}
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" {
		return filepath.Join(rt, "cdpkit"), nil
	}
	if goos == "linux" {
		return filepath.Join(os.TempDir(), fmt.Sprintf("cdpkit-%d", os.Getuid())), nil
	}
	dir, err := cacheDir()
	if err != nil {
		return "", fmt.Errorf("%w (set CDPKIT_STATE_DIR)", err)
	}
	return filepath.Join(dir, "cdpkit"), nil
}

// paths are a session's files in the state dir.
type paths struct {
	dir, socket, state, lock, log string
}

func sessionPaths(dir, session string) paths {
	p := filepath.Join(dir, session)
	return paths{dir: dir, socket: p + ".sock", state: p + ".json", lock: p + ".lock", log: p + ".log"}
}

// maxSocketPath is the longest unix socket path this OS accepts (sun_path
// less its terminating NUL): 108-1 on Linux and Windows 10+, 104-1 on
// macOS and the BSDs.
var maxSocketPath = maxSocketPathFor(runtime.GOOS)

func maxSocketPathFor(goos string) int {
	switch goos {
	case "darwin", "ios", "freebsd", "netbsd", "openbsd", "dragonfly":
		return 103
	}
	return 107
}

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
	var b []byte
	var err error
	// The daemon replaces the file by renaming a new one over it, and the
	// safe reader refuses a file that changed as it was opened: a read that
	// meets the swap reads again. (A FIFO or a device put there is refused
	// each time, without blocking.)
	for range 3 {
		if b, err = policy.ReadRegular(context.Background(), path, 1<<20); !errors.Is(err, policy.ErrUnsafePath) {
			break
		}
	}
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
	if !sysproc.Alive(pid) {
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
		err := sysproc.TryLock(f)
		if err == nil {
			return func() { sysproc.Unlock(f); f.Close() }, nil
		}
		if !errors.Is(err, sysproc.ErrLocked) {
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
