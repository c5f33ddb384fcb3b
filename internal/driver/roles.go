package driver

import (
	"context"
	"time"
)

// Roles a Backend may play besides the Backend interface; the Manager and
// the tools find them by type assertion.

// Resetter reports browser restarts: TakeReset reports whether a browser
// was started in place of one that crashed or was stopped for idleness
// since the last TakeReset, each restart once.
type Resetter interface {
	TakeReset() bool
}

// CallEnder hears of each call's end (Manager.Use), such as to take a
// snapshot of the browser's cookies to restore after a crash.
type CallEnder interface {
	CallEnded()
}

// IdleStopper stops its browser for idleness itself, checking stillIdle
// under its own lock so that a call starting meanwhile keeps the browser;
// idle is the Manager's IdleTimeout, for the log.
type IdleStopper interface {
	StopIdle(stillIdle func() bool, idle time.Duration)
}

// Peeker returns the running browser, or nil when none runs or one is
// being started or stopped, without waiting.
type Peeker interface {
	Peek() Driver
}

// Auditor starts a browser of the backend's own for an outside auditing
// tool (Lighthouse), with the given cookies.
type Auditor interface {
	StartAuditBrowser(ctx context.Context, cookies []Cookie) (AuditBrowser, error)
}

// AuditBrowser is a browser an Auditor started: Port is its DevTools port;
// Close stops it and removes its profile.
type AuditBrowser interface {
	Port() int
	Close() error
}

// Roles a Driver may play beyond the core.

// DownloadLog tracks downloads: Downloads lists those the tabs s sees
// began; DownloadMark marks the downloads begun so far, and
// DownloadsSince returns those tab tabID began after mark, once finished
// or when ctx is done.
type DownloadLog interface {
	Downloads(s *Scope) []Download
	DownloadMark() int
	DownloadsSince(ctx context.Context, mark int, tabID string) []Download
}

// TabLimiter enforces ScopeOptions.MaxTabs on the tabs pages open
// (popups, target=_blank): TakeRefusedTabs reports, once, those it closed
// for s.
type TabLimiter interface {
	TakeRefusedTabs(s *Scope) []RefusedTab
}

// MockLister lists and clears the request mocks q selects; pruned are
// those removed for being spent or expired since the last listing.
type MockLister interface {
	Mocks(ctx context.Context, q MockQuery) (rules, pruned []Mock, err error)
	ClearMocks(ctx context.Context, q MockQuery) ([]Mock, error)
}
