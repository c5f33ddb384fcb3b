package browser

import (
	"context"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// whereEvents are the events after which a tab's last history reading may
// no longer give its URL: a document or same-document navigation in any
// of its frames (an iframe's is enough to be unsure), or a crash.
var whereEvents = []string{
	"Page.frameNavigated", "Page.navigatedWithinDocument", "Inspector.targetCrashed",
}

// whereCache keeps the URL the tab's history last gave, as long as no
// event of whereEvents has come since, so that a call that needs only to
// know where the tab was before it acts (navigate_page's changes) spends
// no round trip on it. The events are watched on the Conn's reader
// goroutine, so a navigation the browser reported before a reply has
// invalidated the cache by the time that reply reaches its caller. The
// title is not kept: a script changes it with no event.
type whereCache struct {
	mu    sync.Mutex
	sess  *cdp.Session // guarded by mu; the session followed
	gen   uint64       // guarded by mu; bumped by every event
	url   string       // guarded by mu
	valid bool         // guarded by mu; url is current
}

// follow makes the cache follow s, forgetting what it knew of another
// session. Call it before Page.enable on s, so no event goes unseen.
func (c *whereCache) follow(s *cdp.Session) {
	c.mu.Lock()
	c.sess, c.valid, c.url = s, false, ""
	c.gen++
	c.mu.Unlock()
	s.Watch(func(cdp.Event) {
		c.mu.Lock()
		if c.sess == s {
			c.gen++
			c.valid = false
		}
		c.mu.Unlock()
	}, whereEvents...)
}

// mark returns the generation to give put for a history reading that
// starts now. A nil cache marks nothing.
func (c *whereCache) mark() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put stores url, read from s's history since mark gave gen; an event
// since then makes it possibly out of date, and it is not kept.
func (c *whereCache) put(s cdpapi.Session, gen uint64, url string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil || cdpapi.Session(c.sess) != s || c.gen != gen {
		return
	}
	c.url, c.valid = url, true
}

// get returns the URL kept, if current.
func (c *whereCache) get() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.sess == nil {
		return "", false
	}
	select {
	case <-c.sess.Done():
		return "", false
	default:
	}
	return c.url, true
}

// whereKey keys the tab's *whereCache on a navigation's context, for the
// history reading that ends it (navigation.result).
type whereKey struct{}

func whereOf(ctx context.Context) *whereCache {
	c, _ := ctx.Value(whereKey{}).(*whereCache)
	return c
}

// LastURL returns the URL the tab's history gave at its last reading (by
// Location, or at the end of a navigation), if no navigation has
// committed in the tab since; it asks the browser nothing. It returns
// false when that is unknown: then call Location.
func (t *Tab) LastURL() (string, bool) { return t.where.get() }
