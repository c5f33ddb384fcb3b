package browser

import (
	"context"
	"errors"
	"fmt"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Scroll scrolls the page instantly, without smooth scrolling, and returns
// where it ended. Scrolling to an element that is not rendered is an
// *ElementError wrapping ErrElementNotVisible.
func (t *Tab) Scroll(ctx context.Context, o driver.ScrollOptions) (*driver.ScrollResult, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	ps, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Direction != "":
		ux, uy, err := o.Axis()
		if err != nil {
			return nil, err
		}
		return scrollPage(ctx, ps, scrollByJS, ux, uy, o.Pixels)
	case o.X != nil || o.Y != nil:
		return scrollPage(ctx, ps, scrollToJS, o.X, o.Y)
	}
	el, err := t.element(ctx, o.Ref, o.Selector)
	if err != nil {
		return nil, err
	}
	defer el.Release(ctx)
	hidden := &driver.ElementError{Ref: el.Ref, Selector: o.Selector, Err: driver.ErrElementNotVisible}
	if _, err := cdpapi.Call(ctx, el.Session, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: el.Backend}); err != nil {
		if cdp.IsProtocolError(err) {
			return nil, hidden
		}
		return nil, fmt.Errorf("browser: scrolling the element into view: %w", err)
	}
	quads, off, err := t.settledQuads(ctx, ps, el)
	if errors.Is(err, driver.ErrElementNotVisible) || (err == nil && !hasArea(quads)) {
		return nil, hidden
	}
	if err != nil {
		return nil, err
	}
	lv, err := layoutViewport(ctx, ps)
	if err != nil {
		return nil, err
	}
	r, _ := quadsBounds(quads)
	r.X, r.Y = r.X+off.X, r.Y+off.Y
	in, fully := viewportOverlap(r, float64(lv.ClientWidth), float64(lv.ClientHeight))
	res, err := scrollPage(ctx, ps, scrollToJS, nil, nil)
	if err != nil {
		return nil, err
	}
	res.InViewport, res.FullyInViewport = &in, &fully
	return res, nil
}

// scrollPage runs a scroll script and decodes the position it reports.
func scrollPage(ctx context.Context, ps *cdp.Session, script pageScript, args ...any) (*driver.ScrollResult, error) {
	var r struct {
		X, Y, W, H, VW, VH float64
		Container          *nodeInfo
	}
	if err := callJS(ctx, ps, jsCall{}, script, &r, args...); err != nil {
		return nil, fmt.Errorf("browser: scrolling: %w", err)
	}
	awaitScrollSeen(ctx, ps)
	res := &driver.ScrollResult{ScrollX: r.X, ScrollY: r.Y, PageWidth: r.W, PageHeight: r.H, ViewportWidth: r.VW, ViewportHeight: r.VH}
	if r.Container != nil {
		res.Container = r.Container.describe()
	}
	return res, nil
}

// awaitScrollSeen waits, at most driver.ActionFrameWait (or half the time
// left), until the page has reacted to a scroll: its IntersectionObservers
// and scroll listeners learn of it only in the next rendering update,
// after the scroll script has answered. Without this wait a feed that loads more
// when its end comes into view showed the new items only in the next
// call's result; and two scrolls with no rendering update between them
// could skip an observer's change of state, so it never loaded again
// (the page's end left view and came back unseen). Best effort: the
// result reports the scroll either way.
func awaitScrollSeen(ctx context.Context, ps *cdp.Session) {
	ctx, cancel := context.WithTimeout(ctx, driver.HalfLeft(ctx, driver.ActionFrameWait))
	defer cancel()
	callJS(ctx, ps, jsCall{}, scrollSeenJS, nil)
}

// scrollSeenJS resolves once the page's observers have seen a scroll.
var scrollSeenJS = loadScript("scroll_seen")

// scrollByJS scrolls by (ux, uy) × amount, where amount is pixels or 80%
// of the visible size: the page when it can move that way, else the
// innermost element under the middle of the viewport that can.
var scrollByJS = loadScript("scroll_by", "scroll_report")

// scrollToJS scrolls the page to (x, y); null keeps an axis.
var scrollToJS = loadScript("scroll_to", "scroll_report")
