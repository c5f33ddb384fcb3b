package browser

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/network"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/webdriver"
)

// wdReap bounds deleting the WebDriver sessions of killed cdpkits at start.
const wdReap = 10 * time.Second

// relaunchAttempts is how many times the Manager tries to start a browser
// in place of one that crashed before it gives up with ErrNoBrowser.
const relaunchAttempts = 2

// Reconnect backoff for an attached browser whose connection dropped.
const (
	reconnectFirst = 100 * time.Millisecond
	reconnectMax   = 5 * time.Second
)

// Manager starts the browser lazily, on the first call that needs one, and
// starts a new one when the old one is gone.
//
// A launched browser that crashes is replaced on the next call, on the same
// profile, so cookies and storage survive; the viewport and emulation of
// its tabs are applied to the new browser's tabs, and [Manager.TakeReset]
// reports the restart once. A dropped connection to an attached browser is
// reconnected with exponential backoff.
//
// A driver.Manager over [Manager.Backend] stops the browser after its
// IdleTimeout without a call (see StopIdle; an attached one is only
// disconnected); the next call starts one again.
//
// # Lifetime
//
// A Manager owns the browsers it starts and their profile until
// [Manager.Close]. It is safe for concurrent use; concurrent first calls
// start one browser.
type Manager struct {
	opts  Options
	lock  chan struct{}    // a 1-slot semaphore guarding the fields below, so waiting honors ctx
	b     *Browser         // guarded by lock
	done  bool             // guarded by lock
	gone  bool             // guarded by lock; a browser ran and is gone (crashed, dropped, or idle)
	emu   driver.Emulation // guarded by lock; what the gone browser's tabs emulated
	sweep sync.Once

	profile string // guarded by lock; launched browsers' user-data-dir, kept across relaunches

	reset atomic.Bool // a browser was restarted since the last TakeReset

	saving   atomic.Bool            // saveCookies is running or scheduled
	unsaved  atomic.Bool            // a call ended after the last cookie snapshot began
	savedAt  atomic.Int64           // when the last cookie snapshot began, in UnixNano
	cookieMu sync.Mutex             // guards cookies
	cookies  []*network.CookieParam // the launched browser's cookies after the last call
}

// NewManager returns a Manager that starts browsers with o. Nil means
// defaults.
func NewManager(o *Options) *Manager {
	m := &Manager{lock: make(chan struct{}, 1)}
	if o != nil {
		m.opts = *o
	}
	if !m.opts.attaching() {
		// At every start, not only at the first launch: what a killed
		// cdpkit or a failed launch left goes at once (issue #25 item 18).
		m.sweep.Do(func() { sweepProfilesIn(m.opts.logger(), m.opts.tempDir) })
	}
	// Likewise the WebDriver sessions of a killed cdpkit: nothing else
	// would ever delete them.
	ctx, cancel := context.WithTimeout(context.Background(), wdReap)
	m.opts.ledger().Reap(ctx, m.opts.logger())
	cancel()
	return m
}

// Browser returns the running browser, starting one if there is none or
// the last one died. The context bounds the wait and the start.
func (m *Manager) Browser(ctx context.Context) (*Browser, error) {
	select {
	case m.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-m.lock }()
	if m.done {
		return nil, driver.ErrClosed
	}
	if m.b != nil {
		select {
		case <-m.b.Done():
			m.opts.logger().Warn("the browser is gone (crashed, killed or disconnected); starting another")
			m.retireLocked() // reap the dead browser's processes
		default:
			return m.b, nil
		}
	}
	if m.opts.attaching() {
		return m.attachLocked(ctx)
	}
	return m.launchLocked(ctx)
}

// retireLocked closes m.b, keeping what its tabs emulated and its profile.
// m.lock must be held.
func (m *Manager) retireLocked() error {
	m.emu = m.b.lastEmulation()
	err := m.b.Close()
	m.b = nil
	m.gone = true
	return err
}

// launchLocked starts a browser on the Manager's profile, creating the
// profile first if needed. m.lock must be held.
func (m *Manager) launchLocked(ctx context.Context) (*Browser, error) {
	m.sweep.Do(func() { sweepProfilesIn(m.opts.logger(), m.opts.tempDir) })
	if m.profile == "" && m.opts.UserDataDir != "" {
		m.profile = m.opts.UserDataDir // the user's: launch claims it, nothing removes it
	}
	if m.profile == "" {
		dir, err := newProfile(m.opts.tempDir)
		if err != nil {
			return nil, &driver.NoBrowserError{Reason: "creating a temporary profile: " + err.Error(), Hint: "check that TMPDIR is writable"}
		}
		m.profile = dir
	}
	o := m.opts
	o.profile = m.profile
	attempts := 1
	if m.gone {
		attempts = relaunchAttempts
	}
	var err error
	for i := range attempts {
		var b *Browser
		if b, err = Start(ctx, &o); err == nil {
			return m.startedLocked(ctx, b), nil
		}
		m.opts.logger().Warn("starting the browser", "attempt", i+1, "err", err)
		if ctx.Err() != nil {
			break
		}
	}
	if !m.gone {
		m.removeProfileLocked() // nothing ran on it yet
	}
	return nil, err
}

// attachLocked connects to the browser the options name. After a dropped
// connection it retries with exponential backoff until ctx ends; a busy
// service (*BusyError) is retried after the wait it asks for, while that
// wait ends before ctx's deadline. A WebDriver session that was lost is
// created anew up to relaunchAttempts times, and the session marked reset,
// as a crashed launched browser is. m.lock must be held.
func (m *Manager) attachLocked(ctx context.Context) (*Browser, error) {
	if _, ok := ctx.Deadline(); !ok {
		// Retries need an end: a caller without a deadline gets the
		// launch timeout's.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.opts.launchTimeout())
		defer cancel()
	}
	webdriver := m.opts.WebDriverURL != ""
	wait, busyWait := reconnectFirst, busyBackoff
	for attempt := 1; ; attempt++ {
		b, err := Start(ctx, &m.opts)
		if err == nil {
			if webdriver {
				return m.startedLocked(ctx, b), nil
			}
			if m.gone {
				m.opts.logger().Info("reconnected to the browser")
			}
			m.b = b
			return b, nil
		}
		var be *driver.BusyError
		switch {
		case errors.As(err, &be) && be.Status == 0:
			// A Grid queued the request for all the wait allowed.
			return nil, err
		case errors.As(err, &be):
			m.opts.logger().Info("the browser service is busy", "status", be.Status, "retryAfter", be.RetryAfter)
			if !waitBusy(ctx, be, busyWait) {
				return nil, err
			}
			busyWait = min(busyWait*2, reconnectMax)
			continue
		case !m.gone || ctx.Err() != nil:
			return nil, err
		case webdriver:
			m.opts.logger().Warn("creating a WebDriver session", "attempt", attempt, "err", err)
			if attempt >= relaunchAttempts {
				return nil, err
			}
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, err
		}
		wait = min(wait*2, reconnectMax)
	}
}

// startedLocked adopts b, a launched browser; after a restart it applies
// the last emulation and marks the session reset. m.lock must be held.
func (m *Manager) startedLocked(ctx context.Context, b *Browser) *Browser {
	m.b = b
	if m.gone {
		m.reset.Store(true)
		m.cookieMu.Lock()
		cookies := m.cookies
		m.cookieMu.Unlock()
		if err := b.setCookies(ctx, cookies); err != nil {
			m.opts.logger().Warn("setting the cookies again after a restart", "err", err)
		}
		if err := b.applyEmulation(ctx, m.emu); err != nil {
			m.opts.logger().Warn("applying the emulation again after a restart", "err", err)
		}
		m.emu = driver.Emulation{}
		m.opts.logger().Info("started a new browser in place of the last one", "profile", m.profile)
	} else {
		m.opts.logger().Info("browser launched", "profile", m.profile)
	}
	return b
}

// TakeReset reports whether a browser was started in place of one that
// crashed or was stopped for idleness since the last TakeReset: its tabs,
// refs and page state are gone. It reports each restart once. A nil
// Manager reports false.
func (m *Manager) TakeReset() bool {
	if m == nil {
		return false
	}
	return m.reset.Swap(false)
}

// CallEnded implements driver.CallEnder: it starts a cookie snapshot after a call on a launched
// browser, unless one is running or scheduled (which then takes another).
func (m *Manager) CallEnded() {
	if m.opts.attaching() {
		return
	}
	m.unsaved.Store(true)
	if m.saving.CompareAndSwap(false, true) {
		m.scheduleSave()
	}
}

// cookieSave bounds taking a cookie snapshot.
const cookieSave = 2 * time.Second

// cookieSaveEvery spaces cookie snapshots: calls that end close together
// share one, taken cookieSaveEvery after the last began. Each snapshot is
// a Storage.getCookies the browser answers while the next call runs: one
// per call cost the browser ~0.3 ms of CPU per list_pages in a loop.
const cookieSaveEvery = 500 * time.Millisecond

// scheduleSave runs saveCookies now, or when cookieSaveEvery has passed
// since the last snapshot began. m.saving must be set.
func (m *Manager) scheduleSave() {
	wait := cookieSaveEvery - time.Since(time.Unix(0, m.savedAt.Load()))
	if wait <= 0 {
		go m.saveCookies()
		return
	}
	time.AfterFunc(wait, m.saveCookies)
}

// saveCookies keeps a copy of the running browser's cookies, to set again
// if it crashes. One runs or is scheduled at a time; a call that ended
// while it ran schedules the next.
func (m *Manager) saveCookies() {
	m.unsaved.Store(false)
	m.savedAt.Store(time.Now().UnixNano())
	m.saveCookiesOnce()
	m.saving.Store(false)
	// A call that ended while this one ran saw saving set and left the
	// work here.
	if m.unsaved.Load() && m.saving.CompareAndSwap(false, true) {
		m.scheduleSave()
	}
}

func (m *Manager) saveCookiesOnce() {
	b := m.Current()
	if b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cookieSave)
	defer cancel()
	cookies, err := b.cookies(ctx)
	if err != nil {
		return // keep the last good copy: the browser may have just crashed
	}
	m.cookieMu.Lock()
	m.cookies = cookies
	m.cookieMu.Unlock()
}

// StopIdle implements driver.IdleStopper: it stops the browser if no call
// has started since the idle period began (stillIdle, checked under the
// Manager's lock); idle is how long that was, for the log.
func (m *Manager) StopIdle(stillIdle func() bool, idle time.Duration) {
	m.lock <- struct{}{}
	defer func() { <-m.lock }()
	if !stillIdle() || m.done || m.b == nil {
		return
	}
	log := m.opts.logger()
	log.Info("stopping the idle browser", "idle", idle)
	if err := m.retireLocked(); err != nil {
		log.Warn("stopping the idle browser", "err", err)
	}
	if err := m.removeProfileLocked(); err != nil {
		log.Warn("removing the idle browser's profile", "err", err)
	}
	m.cookieMu.Lock()
	m.cookies = nil // gone with the profile
	m.cookieMu.Unlock()
}

// removeProfileLocked deletes the Manager's profile, if any, unless it is
// the user's Options.UserDataDir. m.lock must be held.
func (m *Manager) removeProfileLocked() error {
	if m.profile == "" {
		return nil
	}
	var err error
	if m.profile != m.opts.UserDataDir {
		err = removeProfile(m.profile)
	}
	m.profile = ""
	return err
}

// Current returns the running browser without starting one, or nil.
func (m *Manager) Current() *Browser {
	m.lock <- struct{}{}
	defer func() { <-m.lock }()
	return m.b
}

// Peek returns the running browser, or nil when none runs or one is being
// started or stopped: unlike Current it never waits.
func (m *Manager) Peek() *Browser {
	select {
	case m.lock <- struct{}{}:
		defer func() { <-m.lock }()
		return m.b
	default:
		return nil
	}
}

// CurrentDriver returns the running browser as a Driver without starting
// one, or nil.
func (m *Manager) CurrentDriver() driver.Driver {
	if b := m.Current(); b != nil {
		return ChromiumDriver(b)
	}
	return nil
}

// Close stops the browser, if any, removes its profile, and makes later
// calls fail with ErrClosed. It waits for a start in progress, which its
// own deadline bounds.
func (m *Manager) Close() error {
	m.lock <- struct{}{}
	defer func() { <-m.lock }()
	m.done = true
	var err error
	if m.b != nil {
		err = m.b.Close()
		m.b = nil
	}
	if m.opts.WebDriverURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), wdDelete)
		if left := webdriver.Drain(ctx); left > 0 {
			m.opts.logger().Warn("exiting with WebDriver session requests still queued; a session the grid creates from one is deleted by the next cdpkit on this host, or freed by the grid's session timeout", "requests", left)
		}
		cancel()
	}
	return errors.Join(err, m.removeProfileLocked())
}
