package firefox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Tab is one top-level browsing context of a Firefox. It implements
// driver.TabDriver; what Firefox over BiDi cannot do fails with a
// *driver.UnsupportedError (and the tools that need it are not offered,
// see Lacks). Safe for concurrent use.
type Tab struct {
	b  *Browser
	id string

	made   bool   // guarded by b.mu; cdpkit opened the tab
	opener string // set once when made; the context whose page opened it

	slot chan struct{} // holds one token while a state-changing call runs

	mu        sync.Mutex
	curURL    string              // guarded by mu; from events
	curTitle  string              // guarded by mu; from the last Location
	closed    bool                // guarded by mu
	prompt    *driver.Dialog      // guarded by mu; the open user prompt, if any
	note      *driver.Dialog      // guarded by mu; the last prompt answered without the agent
	policy    driver.DialogPolicy // guarded by mu
	promptCh  chan struct{}       // guarded by mu; closed when a prompt opens
	refs      *refTable           // guarded by mu
	lastLines map[string][]string // guarded by mu; the last snapshot's lines, by kind
	// startedNav is the last navigation that started, and prevURL the
	// URL before it, for when it becomes a download (downloads.go);
	// guarded by mu.
	startedNav, prevURL string
	// downloadLink says the last click was on a link that downloads
	// without a navigation (downloads.go).
	downloadLink atomic.Bool

	emu      driver.Emulation // guarded by mu; what the tab emulates (emulate.go)
	imgScale atomic.Uint64    // float64 bits: the last viewport screenshot's scale (pointer_at.go)

	console consoleLog // console.go
	net     netLog     // network.go
}

func makeTab(b *Browser, id, url string) *Tab {
	return &Tab{b: b, id: id, curURL: url, slot: make(chan struct{}, 1), policy: driver.DialogsReport,
		promptCh: make(chan struct{}), refs: newRefTable(), lastLines: make(map[string][]string)}
}

// ID implements driver.TabDriver: the browsing context id.
func (t *Tab) ID() string { return t.id }

func (t *Tab) url() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.curURL
}

func (t *Tab) title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.curTitle
}

func (t *Tab) setURL(u string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if u != "" {
		t.curURL = u
	}
}

// newDocument is navigation nav starting: the refs of the old document
// go stale.
func (t *Tab) newDocument(u, nav string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startedNav, t.prevURL = nav, t.curURL
	if u != "" {
		t.curURL = u
	}
	t.refs.retire()
}

func (t *Tab) gone() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
}

// MakeActive implements driver.TabDriver.
func (t *Tab) MakeActive(ctx context.Context, front bool) error {
	if front {
		if err := t.b.conn.Call(ctx, "browsingContext.activate", map[string]any{"context": t.id}, nil); err != nil {
			return t.wrap(err)
		}
	}
	t.b.mu.Lock()
	if s := t.b.owner[t.id]; s != nil {
		t.b.stateLocked(s).active = t.id
	} else {
		t.b.active = t.id
	}
	t.b.mu.Unlock()
	return nil
}

// Close implements driver.TabDriver: browsingContext.close, which
// returns once the tab is gone.
func (t *Tab) Close(ctx context.Context) error {
	err := t.b.conn.Call(ctx, "browsingContext.close", map[string]any{"context": t.id, "promptUnload": false}, nil)
	if err != nil && !errors.Is(err, bidi.ErrNoSuchFrame) {
		return fmt.Errorf("firefox: closing tab: %w", err)
	}
	t.forget()
	return nil
}

// forget drops the closed tab from the browser's tables at once, as its
// contextDestroyed event will.
func (t *Tab) forget() {
	t.b.onEvent(bidi.Event{Method: "browsingContext.contextDestroyed", Params: []byte(fmt.Sprintf(`{"context":%q}`, t.id))})
}

// wrap turns a browsing context that is gone into the tab's error.
func (t *Tab) wrap(err error) error {
	if errors.Is(err, bidi.ErrNoSuchFrame) {
		return fmt.Errorf("%w: %w", driver.ErrSessionClosed, err)
	}
	return err
}

// Navigate implements driver.TabDriver, waiting for the load event.
func (t *Tab) Navigate(ctx context.Context, url string) (*driver.NavResult, error) {
	return t.NavigateWith(ctx, url, nil)
}

// NavigateWith implements driver.TabDriver: browsingContext.navigate,
// waiting for "interactive" (domcontentloaded) or "complete" (load).
// networkidle has no BiDi equivalent and is refused before navigating.
func (t *Tab) NavigateWith(ctx context.Context, url string, o *driver.NavOptions) (*driver.NavResult, error) {
	wait, err := readiness(o)
	if err != nil {
		return nil, err
	}
	driver.Step(ctx, "navigating")
	start := time.Now()
	var r struct {
		Navigation string `json:"navigation"`
	}
	err = t.b.conn.Call(ctx, "browsingContext.navigate", map[string]any{"context": t.id, "url": url, "wait": wait}, &r)
	if err != nil {
		if b := t.b.blockSince(t.id, start); b != nil {
			return nil, b
		}
	}
	res, err := t.navigated(ctx, url, err)
	if err == nil && t.b.navigationDownloaded(t.id, r.Navigation) {
		// The URL answered with a file, being saved; the tab stayed where it was.
		res.Download = true
	}
	return res, err
}

func readiness(o *driver.NavOptions) (string, error) {
	if o == nil {
		return "complete", nil
	}
	switch o.WaitUntil {
	case "", driver.WaitLoad:
		return "complete", nil
	case driver.WaitDOMContentLoaded:
		return "interactive", nil
	}
	return "", &driver.UnsupportedError{Backend: "firefox", What: "waitUntil " + string(o.WaitUntil)}
}

// navigated reads where a navigation (or history step) ended.
func (t *Tab) navigated(ctx context.Context, url string, err error) (*driver.NavResult, error) {
	if err != nil {
		var ce *bidi.CommandError
		if t.promptOpen() {
			return nil, &driver.DialogOpenError{Dialog: *t.DialogNote()}
		}
		if errors.As(err, &ce) && (ce.Code == "unknown error" || ce.Code == "invalid argument") {
			return nil, &driver.NavigationError{URL: url, Text: ce.Message}
		}
		return nil, t.wrap(err)
	}
	loc, err := t.Location(ctx)
	if err != nil {
		return nil, err
	}
	return &driver.NavResult{URL: loc.URL, Title: loc.Title}, nil
}

// GoBack implements driver.TabDriver: browsingContext.traverseHistory.
func (t *Tab) GoBack(ctx context.Context, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.traverse(ctx, -1)
}

// GoForward implements driver.TabDriver.
func (t *Tab) GoForward(ctx context.Context, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.traverse(ctx, 1)
}

func (t *Tab) traverse(ctx context.Context, delta int) (*driver.NavResult, error) {
	err := t.b.conn.Call(ctx, "browsingContext.traverseHistory", map[string]any{"context": t.id, "delta": delta}, nil)
	var ce *bidi.CommandError
	if errors.As(err, &ce) && ce.Code == "no such history entry" {
		return nil, driver.ErrNoHistoryEntry
	}
	if err != nil {
		return nil, t.wrap(err)
	}
	// traverseHistory returns before the page loads: wait for it.
	if err := t.callJSON(ctx, `() => document.readyState === 'complete' || new Promise(r => addEventListener('load', () => r(true), {once: true}))`, nil, nil); err != nil && !isNoNode(err) {
		t.b.o.logger().Debug("firefox: waiting for load after history step", "err", err)
	}
	return t.navigated(ctx, "", nil)
}

// Reload implements driver.TabDriver: browsingContext.reload.
func (t *Tab) Reload(ctx context.Context, ignoreCache bool, o *driver.NavOptions) (*driver.NavResult, error) {
	wait, err := readiness(o)
	if err != nil {
		return nil, err
	}
	err = t.b.conn.Call(ctx, "browsingContext.reload", map[string]any{"context": t.id, "ignoreCache": ignoreCache, "wait": wait}, nil)
	return t.navigated(ctx, t.url(), err)
}

// Location implements driver.TabDriver, asking the page.
func (t *Tab) Location(ctx context.Context) (driver.Location, error) {
	st, err := t.DocumentState(ctx)
	if err != nil {
		return driver.Location{URL: t.url(), Title: t.title()}, nil // a dialog or a navigation in between: the last known
	}
	return driver.Location{URL: st.URL, Title: st.Title}, nil
}

// DocumentState implements driver.TabDriver.
func (t *Tab) DocumentState(ctx context.Context) (driver.DocumentState, error) {
	var st driver.DocumentState
	if t.promptOpen() {
		return st, &driver.DialogOpenError{Dialog: *t.DialogNote()}
	}
	if err := t.callJSON(ctx, sharedScript("document_state"), nil, &st); err != nil {
		return st, t.wrap(err)
	}
	t.mu.Lock()
	t.curURL, t.curTitle = st.URL, st.Title
	t.mu.Unlock()
	return st, nil
}

// Acquire implements driver.TabDriver: one state-changing call at a time
// on the tab, the others waiting their turn.
func (t *Tab) Acquire(ctx context.Context, op string, limit int) (func(), error) {
	select {
	case t.slot <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-t.slot }) }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("firefox: waiting for the tab for %s: %w", op, ctx.Err())
	}
}

// AwaitNavigation implements driver.TabDriver: navigations are awaited
// by the call that starts them on Firefox, so a read need not wait.
func (t *Tab) AwaitNavigation(ctx context.Context) error { return ctx.Err() }

// CheckCrashed implements driver.TabDriver: a tab whose context is gone
// reports so.
func (t *Tab) CheckCrashed() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return driver.ErrSessionClosed
	}
	select {
	case <-t.b.Done():
		return driver.ErrBrowserCrashed
	default:
	}
	return nil
}

// Settle implements driver.TabDriver: two animation frames, bounded.
func (t *Tab) Settle(ctx context.Context, bound time.Duration) {
	if t.promptOpen() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	t.callJSON(ctx, sharedScript("await_two_frames"), nil, nil)
}

// unsupported is the error of a TabDriver method this backend lacks.
func unsupported(what string) error {
	return &driver.UnsupportedError{Backend: "firefox", What: what}
}

// lowerKey maps "left"/"" to the BiDi mouse button number.
func buttonNumber(b string) (int, error) {
	switch strings.ToLower(b) {
	case "", "left":
		return 0, nil
	case "middle":
		return 1, nil
	case "right":
		return 2, nil
	}
	return 0, fmt.Errorf("%w: button %q: use left, right or middle", driver.ErrInvalidArgument, b)
}

// origin says whether cdpkit opened the tab, and which tab's page opened
// it ("" for none).
func (t *Tab) origin() (made bool, opener string) {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	return t.made, t.opener
}

// The roles Firefox's tab plays beyond the core (driver/contract.go); it
// lacks the others, and the tools refuse what needs them.
var (
	_ driver.TabDriver  = (*Tab)(nil)
	_ driver.PDFPrinter = (*Tab)(nil)
)
