package browser

import (
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// BlockNote returns the URL guard's latest refusal of a document request
// of the tab's main frame that no result has reported yet, or nil; it
// then counts as reported. A navigation the page starts by itself (a
// link, location = in a script, a form post, a meta refresh) is refused
// in the browser, where the tab shows an error page: the note is how the
// result of the action that set it off, or of the next one, says so.
func (t *Tab) BlockNote() *driver.BlockedError {
	g := t.b.guard
	if g == nil {
		return nil
	}
	g.mu.Lock()
	b, ok := g.blocks[cdpapi.FrameID(t.id)]
	g.mu.Unlock()
	if !ok || time.Since(b.at) > blockMemory {
		return nil
	}
	for {
		seen := t.blockSeen.Load()
		if b.at.UnixNano() <= seen {
			return nil
		}
		if t.blockSeen.CompareAndSwap(seen, b.at.UnixNano()) {
			return &driver.BlockedError{URL: b.url, Err: b.err}
		}
	}
}
