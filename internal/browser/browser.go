// Package browser owns a Chromium: launching or attaching, its tabs, the
// one function that resolves a tab selector, navigation and screenshots. It
// speaks CDP through internal/cdp and knows nothing of MCP.
package browser

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/webdriver"
)

// Browser is one connected browser.
//
// # Lifetime
//
// A Browser lives from [Start] until [Browser.Close], or until the
// connection drops ([Browser.Done]). Close of a launched browser stops its
// processes and removes its temporary profile, unless a [Manager] owns the
// profile (it keeps it for a relaunch); Close of an attached browser only
// disconnects.
//
// All methods are safe for concurrent use. Contexts bound only the call
// they are passed to, never the browser's life.
type Browser struct {
	conn *cdp.Conn
	proc *process // nil when attached
	log  *slog.Logger

	targets *targetTable // the live tab list, with its own lock

	mu     sync.Mutex
	active target.ID          // guarded by mu
	tabs   map[target.ID]*Tab // guarded by mu; tabs we have handed out

	identity string // set by Start when attached; see Identity

	wd *wdHold // the WebDriver session the browser was borrowed through, or nil

	// windowPerTab opens every tab in a window of its own: in a headless
	// browser cdpkit launched, where no one sees windows. A tab behind
	// another in a shared window is hidden: it renders no frames, so its
	// actionability waits stall, clicks in its out-of-process frames miss
	// and their screenshots come out blank.
	windowPerTab bool
	wdOnce       sync.Once

	guard *guard // judges every document request; nil only in tests that measure without it

	mocks    mockTable // the fake backend's rules (mock.go)
	noNetLog bool      // Options.NoNetworkLog

	downloads *downloads       // nil unless Options.DownloadDir is set (downloads.go)
	defaults  driver.Emulation // every tab's starting emulation, from the launch options (launchopts.go)

	initState *driver.StorageState             // Options.StorageState (storage.go)
	seeded    map[cdpapi.BrowserContextID]bool // guarded by mu; contexts whose localStorage initState filled

	// Scoped tabs (scope.go); nil until a scope is used.
	scopes map[*driver.Scope]*scopeState // guarded by mu
	owner  map[target.ID]*driver.Scope   // guarded by mu; the scope each scoped tab belongs to
	// refused are tabs opened past their scope's MaxTabs, being closed;
	// guarded by mu (scope.go).
	refused map[target.ID]bool
	serial  uint64 // guarded by mu; set when a scope first uses the browser (scope_limits.go)

	tracer tracer // the trace recording, if any (trace.go)
}

// Start launches a browser, or attaches to one when o names an endpoint.
// The context bounds only the start.
func Start(ctx context.Context, o *Options) (*Browser, error) {
	if o == nil {
		o = &Options{}
	}
	ctx, cancel := context.WithTimeout(ctx, o.launchTimeout())
	defer cancel()
	b := &Browser{log: o.logger(), targets: newTargetTable(), tabs: make(map[target.ID]*Tab), noNetLog: o.NoNetworkLog,
		defaults: o.tabDefaults()}
	if err := o.CheckLaunchOptions(); err != nil {
		return nil, err
	}
	var err error
	if o.attaching() {
		var endpoint string
		b.conn, endpoint, b.wd, err = attach(ctx, o)
		b.identity = endpointIdentity(endpoint)
		if b.wd != nil {
			// A session the remote end dropped is a browser gone: Done
			// fires, and a Manager creates a new one.
			conn := b.conn
			b.wd.stop = b.wd.session.KeepAlive(webdriver.KeepAliveInterval, func() {
				b.log.Warn("the WebDriver session is gone", "session", b.wd.session.ID)
				conn.Close()
			})
		}
	} else {
		b.proc, b.conn, err = launch(ctx, o)
		b.windowPerTab = !o.Headful
		if b.defaults.Viewport == nil {
			// The window is 1280×720, but its page only 1280×633 (the
			// window counts its toolbar, even headless): emulate what the
			// window promises, as the peers do. A browser cdpkit attaches
			// to keeps its own.
			v := driver.DefaultViewport
			b.defaults.Viewport = &v
		}
	}
	if err != nil {
		return nil, err
	}
	if !o.noGuard {
		if b.guard, err = startGuard(ctx, b.conn, o.urlPolicy(), b.log); err != nil {
			b.Close()
			return nil, &driver.NoBrowserError{Reason: err.Error()}
		}
	}
	if o.DownloadDir != "" {
		if err := b.startDownloads(ctx, o); err != nil {
			b.Close()
			return nil, &driver.NoBrowserError{Reason: err.Error(), Hint: "check that the artifact dir is writable"}
		}
	}
	if o.StorageState != nil {
		b.initState = o.StorageState
		if err := b.applyStorageState(ctx, "", nil, b.initState); err != nil {
			b.Close()
			return nil, &driver.NoBrowserError{Reason: err.Error(), Hint: "check the --storage-state file"}
		}
	}
	// Follow the tabs from now on, and learn those that exist now, so
	// "active" means the first of them.
	b.watchPopups()
	if err := b.watchTargets(ctx); err != nil {
		b.Close()
		return nil, &driver.NoBrowserError{Reason: err.Error()}
	}
	if b.Launched() {
		b.targets.madeAll() // its first tab is cdpkit's, not a person's
	}
	if _, err := b.PagesNow(nil); err != nil {
		b.Close()
		return nil, &driver.NoBrowserError{Reason: "listing tabs: " + err.Error()}
	}
	return b, nil
}

// Launched reports whether cdpkit started this browser (rather than
// attaching to one).
func (b *Browser) Launched() bool { return b.proc != nil }

// PID returns the launched browser's process id, or 0 when attached.
func (b *Browser) PID() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.cmd.Process.Pid
}

// ProfileDir returns the launched browser's user-data-dir, or "".
func (b *Browser) ProfileDir() string {
	if b.proc == nil {
		return ""
	}
	return b.proc.profile
}

// Done is closed when the connection to the browser is gone.
func (b *Browser) Done() <-chan struct{} { return b.conn.Done() }

// Close disconnects, and stops a launched browser and removes its profile.
// It returns when the processes are gone, bounded by a few seconds. It is
// safe to call more than once.
func (b *Browser) Close() error {
	b.finishTraces()
	if b.proc == nil {
		err := b.conn.Close()
		if b.wd != nil {
			b.wdOnce.Do(func() { err = errors.Join(err, b.wd.release(b.log)) })
		}
		return err
	}
	var conn *cdp.Conn
	select {
	case <-b.conn.Done():
	default:
		conn = b.conn
	}
	err := b.proc.close(conn)
	b.conn.Close()
	return err
}

// Version describes the browser.
type Version struct {
	Product   string `json:"product"`
	Protocol  string `json:"protocol"`
	UserAgent string `json:"userAgent"`
	JS        string `json:"js"`
}

// Version asks the browser for its version.
func (b *Browser) Version(ctx context.Context) (Version, error) {
	return browserVersion(ctx, b.conn)
}

func browserVersion(ctx context.Context, conn *cdp.Conn) (Version, error) {
	v, err := cdpapi.Call(ctx, conn.Browser(), cdpbrowser.GetVersion, cdpapi.Empty{})
	if err != nil {
		return Version{}, err
	}
	return Version{Product: v.Product, Protocol: v.ProtocolVersion, UserAgent: v.UserAgent, JS: v.JsVersion}, nil
}
