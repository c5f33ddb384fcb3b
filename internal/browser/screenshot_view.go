package browser

import "sync"

// shotView is a tab's viewport as a screenshot measured it: what a viewport
// capture needs to plan, known without asking the page again.
type shotView struct {
	W, H       float64 // the visual viewport, in CSS pixels
	DPR        float64 // device pixels per CSS pixel
	ImgW, ImgH int     // the size of an unclipped viewport capture
}

// viewCache keeps a tab's shotView between screenshots. Anything that may
// change the viewport (SetViewport, Emulate, a new session) invalidates it;
// a window resized behind cdpkit's back shows as a capture of another size,
// which the screenshot checks before it trusts the cache.
type viewCache struct {
	mu  sync.Mutex // guards the fields below
	gen uint64     // bumped by every invalidation
	v   *shotView
}

// get returns the cached view, if any, and the generation to put a new
// one under.
func (c *viewCache) get() (shotView, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v == nil {
		return shotView{}, c.gen, false
	}
	return *c.v, c.gen, true
}

// put caches v unless the cache was invalidated since get returned gen.
func (c *viewCache) put(gen uint64, v shotView) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.v = &v
	}
}

// invalidate forgets the view.
func (c *viewCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.v = nil
}

// knownView returns the tab's cached viewport, unless it emulates a mobile
// device: there the page's <meta name=viewport> sets the CSS pixels the
// view holds, which each navigation may change without resizing anything.
func (t *Tab) knownView() (shotView, uint64, bool) {
	t.emu.mu.Lock()
	mobile := t.emu.state.Viewport != nil && t.emu.state.Viewport.Mobile
	t.emu.mu.Unlock()
	v, gen, ok := t.emu.view.get()
	return v, gen, ok && !mobile
}
