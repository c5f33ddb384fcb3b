// Package lease keeps tab leases: which agent owns which tab of a browser,
// shared by every cdpkit process on the machine that drives that browser.
//
// A lease is a file in a private directory (0700, files 0600), keyed by
// the browser's identity and the tab's target id. A claim creates the file
// exclusively; every change replaces it atomically (a temporary file
// renamed over it), so a reader never sees a torn record. Read-check-write
// sections (claim, reclaim, refresh, release) hold one file lock for the
// directory, which dies with its process, so two processes cannot both win
// a tab. Reads take no lock.
//
// An owner is a process and a client inside it (an HTTP MCP session, the
// stdio client, a CLI session through the daemon). A lease is reclaimable
// only when its owner's process is gone or it was not used for its ttl;
// reclaiming mints a fresh nonce, so the old token stops working.
package lease

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// DefaultTTL is how long a lease lives without a checked call.
const DefaultTTL = 15 * time.Minute

// Reasons a lease is stale, as list_leases and reap report them.
const (
	DeadOwner  = "dead-pid"
	Expired    = "expired"
	TargetGone = "target-gone"
)

var (
	// ErrHeld means another owner holds the tab (or its record cannot be
	// read, which never counts as free). See HeldError.
	ErrHeld = errors.New("lease: the tab is held")
	// ErrBadToken means a string is not a lease token.
	ErrBadToken = errors.New("lease: not a lease token")
)

// HeldError is a refused claim or call: the lease that holds the tab, or
// why its record could not be read.
type HeldError struct {
	Record     *Record // nil when Unreadable
	Unreadable string  // errno name (EACCES) or "unparseable"
}

func (e *HeldError) Error() string {
	if e.Record == nil {
		return "lease: the tab's lease record is unreadable (" + e.Unreadable + ")"
	}
	return fmt.Sprintf("lease: tab %s is held by %s", e.Record.TargetID, e.Record.Label)
}

func (e *HeldError) Unwrap() error { return ErrHeld }

// Owner is who holds a lease: a process and a client inside it.
type Owner struct {
	PID    int    `json:"pid"`
	Client string `json:"client"`
}

// Tab names a tab of one browser.
type Tab struct {
	Backend  string // "chrome" or "firefox": their target ids are not disjoint
	Browser  string // the browser's identity
	TargetID string
}

// Record is one lease as stored.
type Record struct {
	Backend    string `json:"backend"`
	Browser    string `json:"browser"`
	TargetID   string `json:"targetId"`
	Nonce      string `json:"nonce"`
	Owner      Owner  `json:"owner"`
	Label      string `json:"label"`
	Auto       bool   `json:"auto,omitempty"` // acquired by strict mode: the owner passes without a token
	CreatedAt  int64  `json:"createdAt"`      // unix ms
	LastUsedAt int64  `json:"lastUsedAt"`     // unix ms
	TTLMs      int64  `json:"ttlMs"`
}

// Token is the opaque token the holder presents: backend:targetId:nonce.
func (r *Record) Token() string { return r.Backend + ":" + r.TargetID + ":" + r.Nonce }

// ExpiresAt is when the lease expires without another checked call (ms).
func (r *Record) ExpiresAt() int64 { return r.LastUsedAt + r.TTLMs }

// ParseToken splits a token into its backend, target id and nonce.
func ParseToken(token string) (backend, targetID, nonce string, err error) {
	parts := strings.Split(token, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", fmt.Errorf("%w: want backend:targetId:nonce", ErrBadToken)
	}
	return parts[0], parts[1], parts[2], nil
}

// Store is the lease directory. Its methods are safe for concurrent use by
// goroutines and processes.
type Store struct {
	dir   string
	ttl   time.Duration
	now   func() time.Time
	alive func(pid int) bool
	seen  originCache
}

// Options configure a Store. Nil means defaults.
type Options struct {
	TTL   time.Duration      // default lease ttl; zero means DefaultTTL
	Now   func() time.Time   // the clock; nil means time.Now
	Alive func(pid int) bool // process liveness; nil means sysproc.Alive
}

// Open returns the store in dir, creating dir 0700; it refuses a dir
// others may read or write.
func Open(dir string, o *Options) (*Store, error) {
	if o == nil {
		o = &Options{}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lease: opening the store: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("lease: opening the store: %w", err)
	}
	if err := sysproc.CheckPrivateDir(dir, fi); err != nil {
		return nil, fmt.Errorf("lease: opening the store: %w", err)
	}
	s := &Store{dir: dir, ttl: o.TTL, now: o.Now, alive: o.Alive}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.alive == nil {
		s.alive = sysproc.Alive
	}
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// TTL returns the default lease ttl.
func (s *Store) TTL() time.Duration { return s.ttl }

var safeID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// browserKey is a short, file-name-safe key of a backend and browser.
func browserKey(backend, browser string) string {
	sum := sha256.Sum256([]byte(backend + "\x00" + browser))
	return hex.EncodeToString(sum[:8])
}

// fileID is a file-name-safe form of a target id.
func fileID(id string) string {
	if safeID.MatchString(id) && id != "." && id != ".." {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "h" + hex.EncodeToString(sum[:12])
}

func (s *Store) leasePath(t Tab) string {
	return filepath.Join(s.dir, "lease-"+browserKey(t.Backend, t.Browser)+"-"+fileID(t.TargetID)+".json")
}

// Stale says why r is free to take: DeadOwner, Expired, or "" when it is
// live.
func (s *Store) Stale(r *Record) string {
	if !s.alive(r.Owner.PID) {
		return DeadOwner
	}
	if s.now().UnixMilli() > r.ExpiresAt() {
		return Expired
	}
	return ""
}

// Get returns t's lease: nil when there is none, a *HeldError with
// Unreadable when the record cannot be read.
func (s *Store) Get(t Tab) (*Record, error) {
	return readRecord(s.leasePath(t))
}

func readRecord(path string) (*Record, error) {
	r, err := readJSON[Record](path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &HeldError{Unreadable: unreadableReason(err)}
	}
	if r.TargetID == "" || r.Nonce == "" {
		return nil, &HeldError{Unreadable: "unparseable"}
	}
	return &r, nil
}

// errUnparseable marks a record that was read but is not valid JSON.
var errUnparseable = errors.New("lease: unparseable record")

func readJSON[T any](path string) (T, error) {
	var v T
	b, err := policy.ReadRegular(context.Background(), path, 1<<20)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, errUnparseable
	}
	return v, nil
}

// unreadableReason names why a record could not be read: "unparseable",
// "not a regular file" (a directory, a FIFO: never opened), or the errno
// of the read, such as EACCES.
func unreadableReason(err error) string {
	var en syscall.Errno
	switch {
	case errors.Is(err, errUnparseable):
		return "unparseable"
	case errors.Is(err, policy.ErrUnsafePath):
		return "not a regular file"
	case errors.Is(err, fs.ErrPermission):
		return "EACCES"
	case errors.As(err, &en):
		return fmt.Sprintf("errno %d", int(en))
	}
	return "unreadable"
}

// Claim is what a new lease says.
type Claim struct {
	Owner Owner
	Label string
	Auto  bool
	TTL   time.Duration // zero means the store's
}

// Claim takes t for c.Owner and returns the new record. A tab whose lease
// is stale is reclaimed with a fresh nonce. A live lease refuses with a
// *HeldError, even one the same owner holds, with one exception: an auto
// lease of the same owner is upgraded to the explicit one c asks for (or
// kept, for another auto claim).
func (s *Store) Claim(t Tab, c Claim) (*Record, error) {
	if err := CheckLabel(c.Label); err != nil {
		return nil, err
	}
	var out *Record
	err := s.locked(func() error {
		old, err := s.Get(t)
		if err != nil {
			return err
		}
		if old != nil && s.Stale(old) == "" && !(old.Auto && old.Owner == c.Owner) {
			return &HeldError{Record: old}
		}
		if old != nil && old.Auto && c.Auto && s.Stale(old) == "" {
			out = old
			return nil
		}
		r, err := s.newRecord(t, c)
		if err != nil {
			return err
		}
		if old == nil {
			err = s.create(t, r)
		} else {
			err = s.replace(t, r)
		}
		if err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

func (s *Store) newRecord(t Tab, c Claim) (*Record, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("lease: minting a nonce: %w", err)
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = s.ttl
	}
	now := s.now().UnixMilli()
	label := c.Label
	if label == "" {
		label = fmt.Sprintf("pid-%d", c.Owner.PID)
		if c.Owner.Client != "" {
			label += "/" + c.Owner.Client
		}
	}
	return &Record{Backend: t.Backend, Browser: t.Browser, TargetID: t.TargetID, Nonce: hex.EncodeToString(nonce),
		Owner: c.Owner, Label: label, Auto: c.Auto, CreatedAt: now, LastUsedAt: now, TTLMs: ttl.Milliseconds()}, nil
}

// Touch refreshes the lease a checked call used: it must still hold the
// nonce and be live. It returns the refreshed record, or a *HeldError with
// the record that replaced it. A lease refreshed less than a second (or a
// tenth of its ttl) ago is not written again: the refresh only has to
// keep a working agent's lease from expiring.
func (s *Store) Touch(t Tab, nonce string) (*Record, error) {
	cur, err := s.Get(t)
	if err != nil {
		return nil, err
	}
	if cur == nil || cur.Nonce != nonce || s.Stale(cur) != "" {
		return nil, &HeldError{Record: cur}
	}
	if age := s.now().UnixMilli() - cur.LastUsedAt; age >= 0 && age < min(1000, cur.TTLMs/10) {
		return cur, nil
	}
	var out *Record
	err = s.locked(func() error {
		cur, err := s.Get(t)
		if err != nil {
			return err
		}
		if cur == nil || cur.Nonce != nonce || s.Stale(cur) != "" {
			return &HeldError{Record: cur}
		}
		cur.LastUsedAt = s.now().UnixMilli()
		out = cur
		return s.replace(t, cur)
	})
	return out, err
}

// Release gives t's lease back when nonce is its nonce. It reports whether
// a live lease was released; a stale one with that nonce is removed, but
// reported as not released, since the tab may belong to someone else by
// now.
func (s *Store) Release(t Tab, nonce string) (released bool, err error) {
	err = s.locked(func() error {
		cur, err := s.Get(t)
		if err != nil || cur == nil || cur.Nonce != nonce {
			return err
		}
		released = s.Stale(cur) == ""
		return s.remove(t)
	})
	return released, err
}

// ReleaseOwned gives t's lease back when o holds it and it is live, and
// returns the released record (nil when there was none to release).
func (s *Store) ReleaseOwned(t Tab, o Owner) (*Record, error) {
	var out *Record
	err := s.locked(func() error {
		cur, err := s.Get(t)
		if err != nil || cur == nil || cur.Owner != o || s.Stale(cur) != "" {
			return err
		}
		out = cur
		return s.remove(t)
	})
	return out, err
}

// Drop removes t's lease whoever holds it: the tab closed.
func (s *Store) Drop(t Tab) error {
	return s.locked(func() error { return s.remove(t) })
}

// Row is one lease of a browser as List reports it. Unreadable rows carry
// only the target id (from the file name) and why.
type Row struct {
	Record
	File       string // the record's file name
	Stale      string // DeadOwner, Expired or ""
	Unreadable string
}

// List returns the leases of one browser, unreadable records included.
func (s *Store) List(backend, browser string) ([]Row, error) {
	prefix := "lease-" + browserKey(backend, browser) + "-"
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("lease: listing: %w", err)
	}
	var rows []Row
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".json") {
			continue
		}
		r, err := readRecord(filepath.Join(s.dir, name))
		var he *HeldError
		switch {
		case errors.As(err, &he):
			id := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".json")
			rows = append(rows, Row{Record: Record{Backend: backend, Browser: browser, TargetID: id}, File: name, Unreadable: he.Unreadable})
		case err != nil || r == nil:
			// Removed since the directory was read.
		default:
			rows = append(rows, Row{Record: *r, File: name, Stale: s.Stale(r)})
		}
	}
	return rows, nil
}

// locked runs f holding the store's lock.
func (s *Store) locked(f func() error) error {
	lf, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lease: locking: %w", err)
	}
	defer lf.Close()
	if err := sysproc.Lock(lf); err != nil {
		return fmt.Errorf("lease: locking: %w", err)
	}
	defer sysproc.Unlock(lf)
	return f()
}

// create writes r as t's record if t has none: the whole record goes to a
// temporary file first, then is linked into place, which fails if the
// name exists, so a reader never sees a half-written record.
func (s *Store) create(t Tab, r *Record) error {
	tmp, err := s.writeTemp(r)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, s.leasePath(t)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			cur, _ := s.Get(t)
			return &HeldError{Record: cur}
		}
		return fmt.Errorf("lease: creating: %w", err)
	}
	return nil
}

// replace writes r as t's record atomically.
func (s *Store) replace(t Tab, r *Record) error {
	tmp, err := s.writeTemp(r)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, s.leasePath(t)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("lease: replacing: %w", err)
	}
	return nil
}

func (s *Store) remove(t Tab) error {
	if err := os.Remove(s.leasePath(t)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("lease: removing: %w", err)
	}
	return nil
}

// writeTemp writes v to a new temporary file in the store (created
// exclusively, 0600) and returns its path.
func (s *Store) writeTemp(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("lease: encoding: %w", err)
	}
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("lease: writing: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("lease: writing: %w", errors.Join(werr, cerr))
	}
	return f.Name(), nil
}
