package driver

import (
	"errors"
	"sync/atomic"
)

// ErrScopeClosed means the scope's session ended, which closed its tabs.
var ErrScopeClosed = errors.New("browser: the session ended")

// Scope is one client's share of a browser: the tabs it opened (and the
// popups those opened), and which of them is its active tab. A client
// that acts through a Scope sees and resolves only its own tabs; another
// scope's tab id matches nothing. A nil *Scope means the unscoped view:
// every tab, and the browser-wide active tab (stdio, the CLI daemon).
//
// A Scope is only an identity and its options; the tabs it owns are kept
// by the [Browser], so a browser that is replaced (after a crash) starts
// every scope afresh.
//
// # Lifetime
//
// A Scope lives until the Chromium backend's CloseScope, which closes its tabs (and its
// browser context) in that browser; a tab opened in a closed scope is
// closed at once and fails with [ErrScopeClosed].
//
// Scopes are safe for concurrent use.
type Scope struct {
	isolate     bool
	maxTabs     int    // 0: no bound
	downloadDir string // with isolate: where its context's downloads go ("": the browser's dir)
	closed      atomic.Bool

	// Serials of browsers (see Browser.serial): last is the one the scope
	// last acted in, seen the one TakeReset last reported on (0: none).
	last, seen atomic.Uint64
}

// ScopeOptions configure a Scope. Nil means defaults.
type ScopeOptions struct {
	// Isolate gives the scope its own browser context: cookies, storage
	// and cache apart from every other scope's.
	Isolate bool
	// MaxTabs bounds the tabs the scope has open at once: opening one
	// more fails with a [TabLimitError], and a tab its pages open past
	// the bound (a popup, target=_blank) is closed and reported by
	// the Chromium backend's TakeRefusedTabs. Zero means no bound.
	MaxTabs int
	// DownloadDir, with Isolate, is where the downloads of the scope's
	// browser context are saved, apart from other scopes'; empty means the
	// browser's Options.DownloadDir.
	DownloadDir string
}

// NewScope returns an empty scope. Its first tab is opened on first use
// (see the Chromium backend's ResolveIn).
func NewScope(o *ScopeOptions) *Scope {
	if o == nil {
		return &Scope{}
	}
	return &Scope{isolate: o.Isolate, maxTabs: max(o.MaxTabs, 0), downloadDir: o.DownloadDir}
}

// Isolated reports whether s asked for a browser context of its own
// (ScopeOptions.Isolate); a backend other than Chromium reads it to do the
// same.
func (s *Scope) Isolated() bool { return s.isolate }

// Ended reports whether s was closed (see Driver.CloseScope): a backend
// refuses new tabs in it with ErrScopeClosed.
func (s *Scope) Ended() bool { return s.closed.Load() }

// End marks s closed; a backend's CloseScope calls it before closing the
// scope's tabs, as the Chromium backend's CloseScope does.
func (s *Scope) End() { s.closed.Store(true) }

// MaxTabs is ScopeOptions.MaxTabs: the tabs the scope may have open at
// once; zero means no bound.
func (s *Scope) MaxTabs() int { return s.maxTabs }

// DownloadDir is ScopeOptions.DownloadDir.
func (s *Scope) DownloadDir() string { return s.downloadDir }

// Seen records serial, a backend's browser, as the first one the scope
// acted in, unless one is recorded; see TakeReset.
func (s *Scope) Seen(serial uint64) { s.seen.CompareAndSwap(0, serial) }

// ActedIn records serial as the browser the scope last acted in; see
// TakeReset.
func (s *Scope) ActedIn(serial uint64) { s.last.Store(serial) }
