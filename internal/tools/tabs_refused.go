package tools

import "github.com/cdpkit/cdpkit/internal/driver"

// refusedTabsHint is what an agent can do about tabs closed past its
// session's tab limit.
const refusedTabsHint = "the session has as many tabs open as --max-tabs-per-session allows, so the page's new tabs were closed: close_page one first to let it open another"

// noteRefusedTabs adds to c the tabs the session's pages opened past its
// tab limit since the last report, on a backend that enforces the limit
// on the tabs pages open.
func noteRefusedTabs(o *before, c *Changes) {
	r, ok := o.b.(driver.TabLimiter)
	if !ok {
		return
	}
	if c.TabsRefused = r.TakeRefusedTabs(o.scope); len(c.TabsRefused) > 0 {
		c.TabsRefusedHint = refusedTabsHint
	}
}
