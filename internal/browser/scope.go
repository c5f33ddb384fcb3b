package browser

import (
	"context"
	"fmt"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// scopeState is what a Browser keeps about one scope. Guarded by the
// Browser's mu.
type scopeState struct {
	active  target.ID
	context cdpapi.BrowserContextID // with Isolate, once a tab was opened
	opening int                     // tabs being opened (OpenTab), counted against MaxTabs
	refused []driver.RefusedTab     // tabs its pages opened past MaxTabs, closed, not yet reported
}

// stateLocked returns s's state, creating it. b.mu must be held.
func (b *Browser) stateLocked(s *driver.Scope) *scopeState {
	if b.scopes == nil {
		b.scopes = make(map[*driver.Scope]*scopeState)
		b.owner = make(map[target.ID]*driver.Scope)
	}
	st := b.scopes[s]
	if st == nil {
		st = &scopeState{}
		b.scopes[s] = st
		if b.serial == 0 {
			b.serial = browserSerials.Add(1)
		}
		s.Seen(b.serial)
	}
	s.ActedIn(b.serial)
	return st
}

// adoptLocked gives a tab no scope owns to the scope of the tab that
// opened it, or of its browser context, so a session's popups are its
// own. b.mu must be held.
func (b *Browser) adoptLocked(ti *target.Info) {
	if b.scopes == nil || b.owner[ti.TargetID] != nil || b.refused[ti.TargetID] {
		return
	}
	if s := b.owner[ti.OpenerID]; ti.OpenerID != "" && s != nil {
		b.giveLocked(ti, s)
		return
	}
	if ti.BrowserContextID == "" {
		return
	}
	for s, st := range b.scopes {
		if st.context == ti.BrowserContextID {
			b.giveLocked(ti, s)
			return
		}
	}
}

// giveLocked makes s own a tab its pages opened, unless s has MaxTabs
// tabs already: then the tab is closed, and kept for TakeRefusedTabs to
// report. A tab new_page opens in s's own context is adopted here too,
// but its reservation (reserveTab) kept s under the bound. b.mu must be
// held.
func (b *Browser) giveLocked(ti *target.Info, s *driver.Scope) {
	if s.MaxTabs() > 0 && ti.Type == "page" {
		n := 0
		for _, o := range b.owner {
			if o == s {
				n++
			}
		}
		if n >= s.MaxTabs() {
			if b.refused == nil {
				b.refused = make(map[target.ID]bool)
			}
			b.refused[ti.TargetID] = true
			if st := b.scopes[s]; st != nil && len(st.refused) < maxRefusedKept {
				st.refused = append(st.refused, driver.RefusedTab{ID: string(ti.TargetID), URL: ti.URL, Opener: string(ti.OpenerID)})
			}
			go b.closeRefused(ti.TargetID)
			return
		}
	}
	b.owner[ti.TargetID] = s
}

// ScopeOf returns the scope that owns t, or nil for a tab of the unscoped
// view.
func (b *Browser) ScopeOf(t *Tab) *driver.Scope {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.owner[t.id]
}

// browserContext returns the browser context a tab of s is created in:
// "" (the default context) unless s isolates, in which case the scope's
// own context is created on first use.
func (b *Browser) browserContext(ctx context.Context, s *driver.Scope) (cdpapi.BrowserContextID, error) {
	if s == nil || !s.Isolated() {
		return "", nil
	}
	if s.Ended() {
		return "", fmt.Errorf("browser: opening a tab: %w", driver.ErrScopeClosed)
	}
	b.mu.Lock()
	id := b.stateLocked(s).context
	b.mu.Unlock()
	if id != "" {
		return id, nil
	}
	res, err := cdpapi.Call(ctx, b.conn.Browser(), target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return "", fmt.Errorf("browser: creating a browser context: %w", err)
	}
	b.mu.Lock()
	st := b.stateLocked(s)
	if st.context == "" {
		st.context = res.BrowserContextID
	}
	id = st.context
	b.mu.Unlock()
	if id == res.BrowserContextID && b.downloads != nil {
		if err := b.downloads.allow(ctx, id, s); err != nil {
			return "", err
		}
	}
	if id == res.BrowserContextID && b.initState != nil {
		if err := b.applyStorageState(ctx, id, nil, b.initState); err != nil {
			return "", err
		}
	}
	if id != res.BrowserContextID {
		// A concurrent first tab created the scope's context first.
		cdpapi.Call(ctx, b.conn.Browser(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: res.BrowserContextID})
	}
	return id, nil
}

// claim records a tab just opened for s. If s was closed meanwhile, the
// tab is closed and claim fails with ErrScopeClosed.
func (b *Browser) claim(ctx context.Context, s *driver.Scope, id target.ID, active bool) error {
	b.mu.Lock()
	if s == nil {
		if active {
			b.active = id
		}
		b.mu.Unlock()
		return nil
	}
	st := b.stateLocked(s)
	b.owner[id] = s
	if active || st.active == "" {
		st.active = id
	}
	b.mu.Unlock()
	if s.Ended() {
		b.CloseScope(ctx, s)
		return fmt.Errorf("browser: opening a tab: %w", driver.ErrScopeClosed)
	}
	return nil
}

// CloseScope closes the tabs s owns in this browser and disposes of its
// browser context, and makes s refuse new tabs. Failures are ignored: the
// tabs may be gone already. The context bounds the CDP calls.
func (b *Browser) CloseScope(ctx context.Context, s *driver.Scope) {
	s.End()
	b.mu.Lock()
	var ids []target.ID
	for id, owner := range b.owner {
		if owner == s {
			ids = append(ids, id)
			delete(b.owner, id)
			b.closingLocked(id)
		}
	}
	var bctx cdpapi.BrowserContextID
	if st := b.scopes[s]; st != nil {
		bctx = st.context
		delete(b.scopes, s)
	}
	b.mu.Unlock()
	if b.downloads != nil {
		b.downloads.forget(s)
	}
	if bctx != "" {
		// Closes every page in it, without beforeunload.
		if _, err := cdpapi.Call(ctx, b.conn.Browser(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: bctx}); err == nil {
			return
		}
	}
	for _, id := range ids {
		cdpapi.Call(ctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id})
	}
}
