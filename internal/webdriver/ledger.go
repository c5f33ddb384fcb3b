package webdriver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// Ledger records the WebDriver sessions this process holds, one small
// file each (webdriver-<pid>-<session id>.json, mode 0600) in a private
// directory, so that a cdpkit killed before it could delete its sessions
// (SIGKILL, a power cut) has them deleted by the next start ([Reap]): a
// grid would otherwise keep their browsers until its own timeout, and
// chromedriver forever.
//
// A file holds no secret: the remote end's URL is kept without its
// user:password. [Ledger.Reap] takes them from Credentials (the WebDriver
// URL the reaping process was given) when its scheme and host are the
// entry's; a session of a grid that needs credentials cdpkit was not given
// again is left to the grid's own timeout.
type Ledger struct {
	Dir string
	// Credentials is a WebDriver URL whose user:password, if any, Reap
	// uses for the entries of the same scheme and host.
	Credentials string
}

// entry is one ledger file.
type entry struct {
	URL string `json:"url"` // the remote end, without user:password
	ID  string `json:"id"`  // the session
	PID int    `json:"pid"` // the cdpkit process holding it
}

const ledgerPrefix = "webdriver-"

// DefaultLedgerDir is the directory of cdpkit's state, as the CLI's
// sessions use it: CDPKIT_STATE_DIR, else $XDG_RUNTIME_DIR/cdpkit, else
// (Linux) $TMPDIR/cdpkit-<uid>, else the user cache dir's cdpkit.
func DefaultLedgerDir() (string, error) {
	if dir := os.Getenv("CDPKIT_STATE_DIR"); dir != "" {
		return dir, nil
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		return filepath.Join(rt, "cdpkit"), nil
	}
	if runtime.GOOS == "linux" {
		return filepath.Join(os.TempDir(), fmt.Sprintf("cdpkit-%d", os.Getuid())), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("webdriver: %w (set CDPKIT_STATE_DIR)", err)
	}
	return filepath.Join(dir, "cdpkit"), nil
}

func (l Ledger) file(pid int, id string) string {
	return filepath.Join(l.Dir, ledgerPrefix+strconv.Itoa(pid)+"-"+safeName(id)+".json")
}

// safeName keeps a session id to characters safe in a file name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, id)
}

// Add records s as held by this process.
func (l Ledger) Add(s *Session) error {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return fmt.Errorf("webdriver: ledger: %w", err)
	}
	data, err := json.Marshal(entry{URL: withoutUserinfo(s.c.base), ID: s.ID, PID: os.Getpid()})
	if err != nil {
		return fmt.Errorf("webdriver: ledger: %w", err)
	}
	if err := os.WriteFile(l.file(os.Getpid(), s.ID), data, 0o600); err != nil {
		return fmt.Errorf("webdriver: ledger: %w", err)
	}
	return nil
}

// Remove forgets s, once it is deleted.
func (l Ledger) Remove(s *Session) error {
	err := os.Remove(l.file(os.Getpid(), s.ID))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("webdriver: ledger: %w", err)
	}
	return nil
}

// Reap deletes the sessions whose holder is no longer running, and their
// files, and returns how many it found. Sessions of live cdpkit processes
// are left alone. Each file is tried once: a remote end that cannot be
// reached now has most likely dropped the session with its browser. ctx
// bounds the whole sweep.
func (l Ledger) Reap(ctx context.Context, log *slog.Logger) int {
	if l.Dir == "" {
		return 0
	}
	names, err := filepath.Glob(filepath.Join(l.Dir, ledgerPrefix+"*.json"))
	if err != nil || len(names) == 0 {
		return 0
	}
	var wg sync.WaitGroup
	n := 0
	for _, name := range names {
		data, err := policy.ReadRegular(context.Background(), name, 1<<20)
		if err != nil {
			continue
		}
		var e entry
		if json.Unmarshal(data, &e) != nil || e.PID <= 0 {
			os.Remove(name)
			continue
		}
		if e.PID == os.Getpid() || sysproc.Alive(e.PID) {
			continue
		}
		n++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer os.Remove(name)
			c, err := NewClient(l.withCredentials(e.URL), nil)
			if err != nil {
				return
			}
			s := &Session{ID: e.ID, c: c}
			if err := s.Delete(ctx); err != nil {
				log.Warn("deleting a WebDriver session a killed cdpkit left", "url", policy.RedactEndpoint(e.URL), "session", e.ID, "err", err)
				return
			}
			log.Info("deleted a WebDriver session a killed cdpkit left", "url", policy.RedactEndpoint(e.URL), "session", e.ID, "pid", e.PID)
		}()
	}
	wg.Wait()
	return n
}

// withoutUserinfo is raw without its user:password.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// withCredentials gives raw, an entry's URL, the user:password of
// l.Credentials when both name the same scheme and host.
func (l Ledger) withCredentials(raw string) string {
	c, err := url.Parse(l.Credentials)
	if err != nil || c.User == nil {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || !strings.EqualFold(u.Scheme, c.Scheme) || !strings.EqualFold(u.Host, c.Host) {
		return raw
	}
	u.User = c.User
	return u.String()
}
