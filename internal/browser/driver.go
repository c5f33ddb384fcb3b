package browser

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// ChromiumDriver returns b as a Driver.
func ChromiumDriver(b *Browser) driver.Driver { return chromium{b} }

// chromium is the Driver of a Chromium driven over CDP.
type chromium struct{ b *Browser }

func (c chromium) PagesIn(ctx context.Context, s *driver.Scope) ([]driver.Page, error) {
	return c.b.PagesIn(ctx, s)
}

func (c chromium) PagesNow(s *driver.Scope) ([]driver.Page, error) { return c.b.PagesNow(s) }

func (c chromium) DownloadMark() int { return c.b.DownloadMark() }

// TakeRefusedTabs reports the tabs s's pages opened past its MaxTabs.
func (c chromium) TakeRefusedTabs(s *driver.Scope) []driver.RefusedTab { return c.b.TakeRefusedTabs(s) }

func (c chromium) DownloadsSince(ctx context.Context, mark int, tabID string) []driver.Download {
	return c.b.DownloadsSince(ctx, mark, tabID)
}

func (c chromium) TabIn(ctx context.Context, s *driver.Scope, selector string) (driver.TabDriver, error) {
	t, err := c.b.ResolveIn(ctx, s, selector)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (c chromium) NewTab(ctx context.Context, o *driver.TabOptions) (driver.TabDriver, error) {
	t, err := c.b.OpenTab(ctx, o)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (c chromium) CloseScope(ctx context.Context, s *driver.Scope) { c.b.CloseScope(ctx, s) }

// Scope is the scope that owns the tab; nil for a tab no scope claimed.
func (t *Tab) Scope() *driver.Scope { return t.b.ScopeOf(t) }

// MakeActive makes the tab the active one of its scope; with front it
// also brings it to the front, where it renders animation frames.
func (t *Tab) MakeActive(ctx context.Context, front bool) error {
	if front {
		return t.b.Activate(ctx, t)
	}
	t.b.Select(t)
	return nil
}

// StartScreencast is [Tab.Screencast] as a TabDriver returns it.
func (t *Tab) StartScreencast(ctx context.Context, o driver.ScreencastOptions, sink driver.FrameSink) (driver.ScreencastStream, error) {
	sc, err := t.Screencast(ctx, o, sink)
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// Close closes the tab and waits until it is gone.
func (t *Tab) Close(ctx context.Context) error { return t.b.CloseTab(ctx, t) }

// Chromium's tab plays every role.
var (
	_ driver.TabDriver       = (*Tab)(nil)
	_ driver.LocationCache   = (*Tab)(nil)
	_ driver.NetworkLog      = (*Tab)(nil)
	_ driver.Mocker          = (*Tab)(nil)
	_ driver.CookieStore     = (*Tab)(nil)
	_ driver.Console         = (*Tab)(nil)
	_ driver.Uploader        = (*Tab)(nil)
	_ driver.DragScroller    = (*Tab)(nil)
	_ driver.Pointer         = (*Tab)(nil)
	_ driver.Emulator        = (*Tab)(nil)
	_ driver.Screencaster    = (*Tab)(nil)
	_ driver.Tracer          = (*Tab)(nil)
	_ driver.HeapSnapshotter = (*Tab)(nil)
	_ driver.PDFPrinter      = (*Tab)(nil)
)

// Driver returns the running browser as a Driver, starting (or
// reconnecting to) it first if needed, as Browser does.
func (m *Manager) Driver(ctx context.Context) (driver.Driver, error) {
	b, err := m.Browser(ctx)
	if err != nil {
		return nil, err
	}
	return ChromiumDriver(b), nil
}
