package browser

import (
	"context"
	"fmt"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// tab returns the Tab handle for id, creating it on first use.
func (b *Browser) tab(id target.ID) *Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tabs[id]
	if t == nil {
		t = newTabHandle(b, id)
		b.tabs[id] = t
	}
	return t
}

// NewTab opens a blank tab and makes it the active one. Navigate it with
// [Tab.Navigate] to learn the load's outcome.
func (b *Browser) NewTab(ctx context.Context) (*Tab, error) {
	return b.OpenTab(ctx, nil)
}

// OpenTab opens a blank tab, and makes it the active one unless o says
// Background.
func (b *Browser) OpenTab(ctx context.Context, o *driver.TabOptions) (*Tab, error) {
	background := o != nil && o.Background
	var scope *driver.Scope
	if o != nil {
		scope = o.Scope
	}
	p := target.CreateTargetParams{URL: "about:blank"}
	if background {
		p.Background = &background
	}
	if scope != nil || b.windowPerTab {
		// A window per scoped tab: a tab hidden behind another session's
		// renders no frames, so its screenshots and settling would wait
		// on the other session.
		yes := true
		p.NewWindow = &yes
	}
	done, err := b.reserveTab(scope)
	if err != nil {
		return nil, err
	}
	defer done()
	if p.BrowserContextID, err = b.browserContext(ctx, scope); err != nil {
		return nil, err
	}
	res, err := cdpapi.Call(ctx, b.conn.Browser(), target.CreateTarget, p)
	if err != nil {
		return nil, fmt.Errorf("browser: opening a tab: %w", err)
	}
	b.targets.opened(res.TargetID)
	if err := b.claim(ctx, scope, res.TargetID, !background); err != nil {
		return nil, err
	}
	return b.tab(res.TargetID), nil
}

// Select makes t the active tab, the one that tools act on by default,
// without bringing it to the front; [Browser.Activate] does both.
// A tab of a scope becomes that scope's active tab.
func (b *Browser) Select(t *Tab) {
	b.mu.Lock()
	b.selectLocked(t.id)
	b.mu.Unlock()
}

// selectLocked makes id the active tab of its scope, or the browser-wide
// active tab. b.mu must be held.
func (b *Browser) selectLocked(id target.ID) {
	if s := b.owner[id]; s != nil {
		b.stateLocked(s).active = id
		return
	}
	b.active = id
}

// Activate makes t the active tab and brings it to the front.
func (b *Browser) Activate(ctx context.Context, t *Tab) error {
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id}); err != nil {
		return fmt.Errorf("browser: activating tab: %w", err)
	}
	b.mu.Lock()
	b.selectLocked(t.id)
	b.mu.Unlock()
	return nil
}

// closeTabWait bounds how long CloseTab waits for a closed tab to go away.
const closeTabWait = 5 * time.Second

// CloseTab closes t and returns once the browser reports it destroyed. If
// it was active, the most recently opened remaining tab becomes active.
func (b *Browser) CloseTab(ctx context.Context, t *Tab) error {
	// Closing a tab while a dialog of one of its same-origin iframes is open
	// kills Chromium 156 outright; dismiss any open dialog first.
	if t.CheckDialog() != nil {
		t.HandleDialog(ctx, false, "")
	}
	gone := b.targets.destroyed(t.id)
	t.closeAsked.Store(true)
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: t.id}); err != nil {
		return fmt.Errorf("browser: closing tab: %w", err)
	}
	// Target.closeTarget answers before the target is gone. Until it is,
	// the tab is listed, and Pages would make it active again. A tab that
	// will not close (beforeunload) must not hang the caller.
	ctx, cancel := context.WithTimeout(ctx, closeTabWait)
	defer cancel()
	select {
	case <-gone:
	case <-b.conn.Done():
		return fmt.Errorf("browser: closing tab: %w", cdp.ErrDisconnected)
	case <-ctx.Done():
		return fmt.Errorf("browser: closing tab: still open: %w", ctx.Err())
	}
	b.mu.Lock()
	b.forgetLocked(t.id)
	b.mu.Unlock()
	return nil
}

// closingLocked notes that cdpkit is closing tab id, if it handed the tab
// out: input to it that fails as it goes is then not taken for the page
// closing itself (see Tab.closedItself). b.mu must be held.
func (b *Browser) closingLocked(id target.ID) {
	if t := b.tabs[id]; t != nil {
		t.closeAsked.Store(true)
	}
}
