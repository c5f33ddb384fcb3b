package tools

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/poll"
)

// A tab an action opens appears in the browser's list before it has a
// document: no URL, no title, nothing to select it by. The changes wait,
// bounded, until each has committed its first navigation and shows its
// title, and report one that has not as loading; one the page closed in
// the meantime is reported closed.

// tabOpenWait bounds the wait for opened tabs to commit their first
// document.
const tabOpenWait = 3 * time.Second

// tabTitleWait bounds, after a tab's document committed, the wait for
// its title: a page without one shows its URL for good.
const tabTitleWait = 500 * time.Millisecond

// settleOpened waits for the tabs in c.TabsOpened to commit (see above)
// and puts their URLs and titles in c, with Loading set on those still
// without a document; those gone move to c.TabsClosed.
func (o *before) settleOpened(ctx context.Context, c *Changes) {
	if len(c.TabsOpened) == 0 {
		return
	}
	committedAt := make(map[string]time.Time)
	var fresh []driver.Page
	poll.Until(ctx, poll.Options{Interval: 20 * time.Millisecond, Max: 200 * time.Millisecond, Within: tabOpenWait}, func(ctx context.Context) bool {
		pages, err := o.b.PagesIn(ctx, o.scope)
		if err != nil {
			return true // the list is what it was; the result says so
		}
		fresh = pages
		ready := true
		for _, p := range c.TabsOpened {
			j := slices.IndexFunc(fresh, func(f driver.Page) bool { return f.ID == p.ID })
			if j < 0 {
				continue // closed
			}
			f := fresh[j]
			if !committed(f) {
				ready = false
				continue
			}
			if _, ok := committedAt[f.ID]; !ok {
				committedAt[f.ID] = time.Now()
			}
			if !titled(f) && time.Since(committedAt[f.ID]) < tabTitleWait {
				ready = false
			}
		}
		return ready
	})
	if fresh == nil {
		return
	}
	var still []driver.Page
	for _, p := range c.TabsOpened {
		j := slices.IndexFunc(fresh, func(f driver.Page) bool { return f.ID == p.ID })
		if j < 0 {
			c.TabsClosed = append(c.TabsClosed, p.ID)
			continue
		}
		f := fresh[j]
		f.Loading = !committed(f)
		still = append(still, f)
	}
	c.TabsOpened = still
}

// committed reports whether a tab shows a document of its own: a popup
// starts on an empty URL or about:blank until its first navigation
// commits.
func committed(p driver.Page) bool { return p.URL != "" && p.URL != "about:blank" }

// titled reports whether a tab's title is its document's, not the URL
// the browser shows until the title is parsed.
func titled(p driver.Page) bool {
	return p.Title != "" && !strings.Contains(p.URL, p.Title)
}
