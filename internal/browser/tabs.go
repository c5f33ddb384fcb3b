package browser

import (
	"context"
	"fmt"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
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
	res, err := cdpapi.Call(ctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		return nil, fmt.Errorf("browser: opening a tab: %w", err)
	}
	b.mu.Lock()
	if _, ok := b.order[res.TargetID]; !ok {
		b.order[res.TargetID] = b.next
		b.next++
	}
	b.active = res.TargetID
	b.mu.Unlock()
	return b.tab(res.TargetID), nil
}

// Activate makes t the active tab and brings it to the front.
func (b *Browser) Activate(ctx context.Context, t *Tab) error {
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id}); err != nil {
		return fmt.Errorf("browser: activating tab: %w", err)
	}
	b.mu.Lock()
	b.active = t.id
	b.mu.Unlock()
	return nil
}

// CloseTab closes t. If it was active, the most recently opened remaining
// tab becomes active.
func (b *Browser) CloseTab(ctx context.Context, t *Tab) error {
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: t.id}); err != nil {
		return fmt.Errorf("browser: closing tab: %w", err)
	}
	b.mu.Lock()
	b.forgetLocked(t.id)
	b.mu.Unlock()
	return nil
}
