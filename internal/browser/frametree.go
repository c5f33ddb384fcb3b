package browser

import (
	"context"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// A snapshot, a ref's use and an action's changes all need to know each
// frame's current document (its loader id). Asking Page.getFrameTree each
// time cost one or two round trips per call; a tab instead keeps its page
// session's frame tree, read once and kept current from the Page events
// that change it. The events are watched on the Conn's reader goroutine
// (cdp.Session.Watch), so an event the browser sent before a reply has
// updated the tree by the time that reply reaches its caller.

// frameTreeEvents change a session's frames or their documents.
var frameTreeEvents = []string{
	"Page.frameNavigated", "Page.frameAttached", "Page.frameDetached",
	"Page.navigatedWithinDocument", "Inspector.targetCrashed",
}

// frameTreeCache is the frame tree of the one session it follows (the
// tab's page session). The zero value follows nothing.
type frameTreeCache struct {
	mu    sync.Mutex
	sess  *cdp.Session                       // guarded by mu; the session followed
	gen   uint64                             // guarded by mu; bumped by every event
	valid bool                               // guarded by mu; lds and main are current
	lds   map[cdpapi.FrameID]cdpapi.LoaderID // guarded by mu; never mutated once stored (copied on change)
	main  cdpapi.FrameID                     // guarded by mu
}

// follow makes the cache follow s, forgetting what it knew of another
// session. Call it before Page.enable on s, so no event goes unseen.
func (c *frameTreeCache) follow(s *cdp.Session) {
	c.mu.Lock()
	c.sess, c.valid, c.lds, c.main = s, false, nil, ""
	c.gen++
	c.mu.Unlock()
	s.Watch(func(ev cdp.Event) { c.handle(s, ev) }, frameTreeEvents...)
}

// handle applies one event of session s. A navigation updates the
// frame's document in place; frames coming or going, and a crash, make
// the next read ask the browser.
func (c *frameTreeCache) handle(s *cdp.Session, ev cdp.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != s {
		return
	}
	c.gen++
	if !c.valid {
		return
	}
	switch ev.Method {
	case "Page.navigatedWithinDocument":
		// Same document, same loader.
	case "Page.frameNavigated":
		var p page.EventFrameNavigated
		if jsonv2.Unmarshal(ev.Params, &p) != nil || p.Frame == nil {
			c.valid = false
			return
		}
		if p.Frame.ParentID != "" || p.Frame.ID != c.main || p.Type != page.NavigationTypeNavigation {
			// A frame's new document drops the frames of its old one,
			// whose ids the tree does not link to it, and a page restored
			// from the back/forward cache brings its iframes back: ask.
			c.valid = false
			return
		}
		// The main frame's new document: its iframes, if any, attach
		// later (Page.frameAttached), and the old ones are gone.
		c.lds = map[cdpapi.FrameID]cdpapi.LoaderID{p.Frame.ID: p.Frame.LoaderID}
	default:
		c.valid = false
	}
}

// get returns the cached tree of s, if current.
func (c *frameTreeCache) get(s *cdp.Session) (map[cdpapi.FrameID]cdpapi.LoaderID, cdpapi.FrameID, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != s || s == nil {
		return nil, "", 0, false
	}
	return c.lds, c.main, c.gen, c.valid
}

// put stores the tree of s read when the generation was gen; an event
// since then makes it possibly out of date, and it is not kept.
func (c *frameTreeCache) put(s *cdp.Session, gen uint64, lds map[cdpapi.FrameID]cdpapi.LoaderID, main cdpapi.FrameID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != s || c.gen != gen {
		return
	}
	c.lds, c.main, c.valid = lds, main, true
}

// loaders is like the function loaders, from the tab's cache when s is
// its page session and the cache is current. The map returned must not
// be modified.
func (t *Tab) loaders(ctx context.Context, s *cdp.Session) (map[cdpapi.FrameID]cdpapi.LoaderID, cdpapi.FrameID, error) {
	lds, main, gen, ok := t.ftree.get(s)
	if ok {
		return lds, main, nil
	}
	lds, main, err := loaders(ctx, s)
	if err == nil {
		t.ftree.put(s, gen, lds, main)
	}
	return lds, main, err
}
