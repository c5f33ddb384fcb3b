package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Pages lists the open tabs in the order cdpkit first saw them; that order
// gives the numbers that "index:N" selectors use.
func (b *Browser) Pages(ctx context.Context) ([]driver.Page, error) {
	return b.PagesIn(ctx, nil)
}

// PagesIn is [Browser.Pages] for a scope: only the tabs s owns, indexed
// among themselves, with s's active tab. A nil s lists every tab.
//
// Chromium reports no title change, so PagesIn asks for the targets' titles
// (one round trip, bounded by ctx); [Browser.PagesNow] lists from memory.
func (b *Browser) PagesIn(ctx context.Context, s *driver.Scope) ([]driver.Page, error) {
	if err := b.refreshTargets(ctx); err != nil {
		return nil, err
	}
	return b.PagesNow(s)
}

// PagesNow is [Browser.PagesIn] from the live target table, without a
// round trip: the tabs, their order, URLs and openers are current, but a
// title may be the one the tab had when it last navigated. It suits
// telling which tabs opened or closed. A connection that is gone is an
// error matching cdp.ErrDisconnected.
func (b *Browser) PagesNow(s *driver.Scope) ([]driver.Page, error) {
	if err := b.conn.Err(); err != nil {
		return nil, fmt.Errorf("browser: listing tabs: %w", &cdp.DisconnectedError{Method: "browser.Pages", Cause: err})
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// Read under b.mu: a tab handed out (b.tabs, b.owner) is in the table
	// by then, so it is in live unless it is gone.
	targets, live := b.targets.pages()
	slices.SortFunc(targets, func(x, y tabTarget) int { return x.order - y.order })
	b.forgetGoneLocked(live)
	var pages []driver.Page
	for _, tt := range targets {
		ti := &tt.info
		b.adoptLocked(ti)
		if s != nil && b.owner[ti.TargetID] != s {
			continue
		}
		pages = append(pages, driver.Page{ID: string(ti.TargetID), URL: ti.URL, Title: ti.Title, Made: tt.made, OpenerID: string(ti.OpenerID)})
		if t := b.tabs[ti.TargetID]; t != nil && t.crashed.Load() {
			pages[len(pages)-1].Crashed = true
		}
	}
	active := &b.active
	if s != nil {
		active = &b.stateLocked(s).active
	}
	if !live[*active] && len(pages) > 0 {
		*active = target.ID(pages[len(pages)-1].ID)
	}
	for i := range pages {
		pages[i].Index = i
		pages[i].Active = target.ID(pages[i].ID) == *active
	}
	return pages, nil
}

// forgetGoneLocked drops what b keeps of tabs that no longer exist. b.mu
// must be held.
func (b *Browser) forgetGoneLocked(live map[target.ID]bool) {
	for id := range b.tabs {
		if !live[id] {
			b.forgetLocked(id)
		}
	}
	for id := range b.owner {
		if !live[id] {
			b.forgetLocked(id)
		}
	}
	for id := range b.refused {
		if !live[id] {
			delete(b.refused, id)
		}
	}
	if b.active != "" && !live[b.active] {
		b.active = ""
	}
}

// forgetLocked drops a tab that no longer exists. b.mu must be held.
func (b *Browser) forgetLocked(id target.ID) {
	delete(b.tabs, id)
	if b.active == id {
		b.active = ""
	}
	if s := b.owner[id]; s != nil {
		delete(b.owner, id)
		if st := b.scopes[s]; st != nil && st.active == id {
			st.active = ""
		}
	}
}

// Resolve returns the tab a selector names. It is the one place every tool
// that acts on a tab goes through (ownership checks belong here).
//
// Selectors: "" or "active" (the current tab), "index:N" (0-based, in
// [Browser.Pages] order), "url:SUBSTR" and "title:SUBSTR" (the first tab,
// in that order, whose URL or title contains SUBSTR), or an exact target id.
// A selector that matches nothing is a [*TargetNotFoundError]; another tab
// is never substituted.
func (b *Browser) Resolve(ctx context.Context, selector string) (*Tab, error) {
	return b.ResolveIn(ctx, nil, selector)
}

// ResolveIn is [Browser.Resolve] among the tabs of scope s (nil: every
// tab); a tab of another scope matches nothing. A scope that has no tab
// yet gets one for "" or "active", so a new session can start working.
func (b *Browser) ResolveIn(ctx context.Context, s *driver.Scope, selector string) (*Tab, error) {
	match, err := parseSelector(selector)
	if err != nil {
		return nil, err
	}
	// Only a title (which Chromium does not report changing) or a URL
	// selector needs more than the live table. A selector the table does
	// not match is tried again on the browser's own list: a tab opened
	// outside cdpkit a moment ago may not have been announced yet.
	kind, _, _ := strings.Cut(selector, ":")
	fromTable := kind != "title" && kind != "url"
	for {
		var pages []driver.Page
		var err error
		if fromTable {
			pages, err = b.PagesNow(s)
		} else {
			pages, err = b.PagesIn(ctx, s)
		}
		if err != nil {
			return nil, err
		}
		if s != nil && len(pages) == 0 && (selector == "" || selector == "active") {
			return b.OpenTab(ctx, &driver.TabOptions{Scope: s})
		}
		for i, p := range pages {
			if match(i, p) {
				return b.tab(target.ID(p.ID)), nil
			}
		}
		if !fromTable {
			return nil, &driver.TargetNotFoundError{Selector: selector, Open: len(pages)}
		}
		fromTable = false
	}
}

// parseSelector turns a selector into a predicate over (index, page).
func parseSelector(sel string) (func(int, driver.Page) bool, error) {
	ts, err := driver.ParseTabSelector(sel)
	if err != nil {
		return nil, err
	}
	return ts.Match, nil
}
