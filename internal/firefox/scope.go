package firefox

import (
	"context"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Scopes on Firefox, as on Chromium (see driver.Scope): a scope sees and
// resolves only the tabs it opened and the popups those opened, and has an
// active tab of its own. An isolated scope's tabs live in a BiDi user
// context of their own (browser.createUserContext): cookies, storage and
// cache apart from other scopes'.

// scopeState is what a Browser keeps about one scope; guarded by its mu.
type scopeState struct {
	active      string // the scope's active tab
	userContext string // with Isolate, once a tab was opened
}

// stateLocked returns s's state, creating it. b.mu must be held.
func (b *Browser) stateLocked(s *driver.Scope) *scopeState {
	st := b.scopes[s]
	if st == nil {
		st = &scopeState{}
		b.scopes[s] = st
	}
	return st
}

// adoptLocked gives a new tab to the scope of the tab that opened it, or
// of its user context, so that a scope's popups are its own. b.mu must be
// held.
func (b *Browser) adoptLocked(id, opener, userContext string) {
	if b.owner[id] != nil {
		return
	}
	if s := b.owner[opener]; opener != "" && s != nil {
		b.owner[id] = s
		return
	}
	if userContext == "" || userContext == "default" {
		return
	}
	for s, st := range b.scopes {
		if st.userContext == userContext {
			b.owner[id] = s
			return
		}
	}
}

// userContext returns the user context a tab of s is created in: "" (the
// default one) unless s isolates, in which case the scope's own is created
// on first use.
func (b *Browser) userContext(ctx context.Context, s *driver.Scope) (string, error) {
	if s == nil || !s.Isolated() {
		return "", nil
	}
	if s.Ended() {
		return "", fmt.Errorf("firefox: opening a tab: %w", driver.ErrScopeClosed)
	}
	b.mu.Lock()
	id := b.stateLocked(s).userContext
	b.mu.Unlock()
	if id != "" {
		return id, nil
	}
	var r struct {
		UserContext string `json:"userContext"`
	}
	if err := b.conn.Call(ctx, "browser.createUserContext", map[string]any{}, &r); err != nil {
		return "", fmt.Errorf("firefox: creating a user context: %w", err)
	}
	if err := b.defaultViewport(ctx, r.UserContext); err != nil {
		b.conn.Call(ctx, "browser.removeUserContext", map[string]any{"userContext": r.UserContext}, nil)
		return "", err
	}
	if err := b.allowScopeDownloads(ctx, r.UserContext, s); err != nil {
		b.conn.Call(ctx, "browser.removeUserContext", map[string]any{"userContext": r.UserContext}, nil)
		return "", err
	}
	b.mu.Lock()
	st := b.stateLocked(s)
	if st.userContext == "" {
		st.userContext = r.UserContext
	}
	id = st.userContext
	b.mu.Unlock()
	if id != r.UserContext {
		// A concurrent first tab created the scope's context first.
		b.conn.Call(ctx, "browser.removeUserContext", map[string]any{"userContext": r.UserContext}, nil)
	}
	return id, nil
}

// claim records a tab just opened for s (nil: the unscoped view). If s
// ended meanwhile, the scope is closed again, with the tab, and claim
// fails with ErrScopeClosed.
func (b *Browser) claim(ctx context.Context, s *driver.Scope, id string, active bool) error {
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
		return fmt.Errorf("firefox: opening a tab: %w", driver.ErrScopeClosed)
	}
	return nil
}

// visible lists the tabs s sees, in the order opened: its own, or every
// tab for a nil s.
func (b *Browser) visible(s *driver.Scope) []*Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*Tab, 0, len(b.order))
	for _, id := range b.order {
		if s == nil || b.owner[id] == s {
			out = append(out, b.tabs[id])
		}
	}
	return out
}

// activeOf returns s's active tab id ("" if none): the browser-wide one
// for a nil s.
func (b *Browser) activeOf(s *driver.Scope) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s == nil {
		return b.active
	}
	if st := b.scopes[s]; st != nil {
		return st.active
	}
	return ""
}

// forgetLocked drops a closed tab from the scope tables, handing its
// scope's active role to the scope's newest remaining tab. b.mu must be
// held; b.order no longer lists id.
func (b *Browser) forgetLocked(id string) {
	s := b.owner[id]
	delete(b.owner, id)
	if s == nil {
		return
	}
	st := b.scopes[s]
	if st == nil || st.active != id {
		return
	}
	st.active = ""
	for i := len(b.order) - 1; i >= 0; i-- {
		if b.owner[b.order[i]] == s {
			st.active = b.order[i]
			return
		}
	}
}

// CloseScope implements driver.Driver: it closes the tabs s owns (by
// removing its user context, if it has one) and makes s refuse new tabs.
// Failures are ignored: the tabs may be gone already. ctx bounds the BiDi
// calls.
func (b *Browser) CloseScope(ctx context.Context, s *driver.Scope) {
	s.End()
	if b.downloads != nil {
		b.downloads.forget(s)
	}
	b.mu.Lock()
	var tabs []*Tab
	for id, owner := range b.owner {
		if owner == s {
			if t := b.tabs[id]; t != nil {
				tabs = append(tabs, t)
			}
		}
	}
	var uc string
	if st := b.scopes[s]; st != nil {
		uc = st.userContext
		delete(b.scopes, s)
	}
	b.mu.Unlock()
	if uc != "" {
		// Closes every tab in it, without beforeunload.
		if err := b.conn.Call(ctx, "browser.removeUserContext", map[string]any{"userContext": uc}, nil); err == nil {
			for _, t := range tabs {
				t.forget()
			}
			return
		}
	}
	for _, t := range tabs {
		t.Close(ctx)
	}
}

// Scope implements driver.TabDriver: the scope that owns the tab, or nil.
func (t *Tab) Scope() *driver.Scope {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	return t.b.owner[t.id]
}
