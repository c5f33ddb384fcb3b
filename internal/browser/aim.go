package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// freePoint returns a point of el, in CSS pixels of the page's viewport,
// where a pointer hits el (or something inside it). It first checks that
// el is rendered (and, with enabled, not disabled); with scroll it
// scrolls el into view, and when el is covered where it is (under a fixed
// header), to the middle of the viewport for a second try. Failures are
// *ElementErrors naming el by its ref or selector.
//
// A form control without a box of its own (a zero-size checkbox its
// label draws) is aimed at through its label, where a person clicks.
func (t *Tab) freePoint(ctx context.Context, ps *cdp.Session, el *element, selector string, enabled, scroll bool) (point, error) {
	p, err := t.aimElement(ctx, ps, el, selector, enabled, scroll)
	if !errors.Is(err, driver.ErrElementNotVisible) {
		return p, err
	}
	proxy := labelProxy(ctx, el)
	if proxy == nil {
		return p, err
	}
	defer proxy.Release(ctx)
	if enabled {
		// The label is never disabled; the control may be.
		var st struct{ Hidden, Disabled bool }
		if callJS(ctx, el.Session, jsCall{this: el.Object}, elementStateJS, &st) == nil && st.Disabled {
			return point{}, &driver.ElementError{Ref: el.Ref, Selector: selector, Err: driver.ErrElementDisabled}
		}
	}
	if pp, perr := t.aimElement(ctx, ps, proxy, selector, false, scroll); perr == nil {
		return pp, nil
	}
	return p, err
}

var proxyJS = loadScript("proxy")

// labelProxy returns the rendered label of el (see proxy.js), or nil.
func labelProxy(ctx context.Context, el *element) *element {
	yes := false
	r, err := cdpapi.Call(ctx, el.Session, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { return (" + proxyJS.src + ").call(this) }", ObjectID: el.Object, ReturnByValue: &yes, ObjectGroup: elementGroup,
	})
	if err != nil || r.ExceptionDetails != nil || r.Result == nil || r.Result.ObjectID == "" {
		return nil
	}
	d, err := cdpapi.Call(ctx, el.Session, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: r.Result.ObjectID})
	if err != nil || d.Node == nil {
		(&element{Session: el.Session, Object: r.Result.ObjectID}).Release(ctx)
		return nil
	}
	return &element{Session: el.Session, Backend: d.Node.BackendNodeID, Object: r.Result.ObjectID, Ref: el.Ref}
}

// aimElement is freePoint for el itself.
func (t *Tab) aimElement(ctx context.Context, ps *cdp.Session, el *element, selector string, enabled, scroll bool) (point, error) {
	if el.Session == ps {
		// One round trip when the element is ready where it is; the
		// slow path below says why when it is not.
		var p *point
		if err := callJS(ctx, ps, jsCall{this: el.Object}, aimJS, &p, enabled); err == nil && p != nil {
			return *p, nil
		}
	}
	fail := func(err error) error { return &driver.ElementError{Ref: el.Ref, Selector: selector, Err: err} }
	var st struct{ Hidden, Disabled bool }
	if err := callJS(ctx, el.Session, jsCall{this: el.Object}, elementStateJS, &st); err != nil {
		return point{}, err
	}
	switch {
	case st.Hidden:
		return point{}, fail(driver.ErrElementNotVisible)
	case enabled && st.Disabled:
		return point{}, fail(driver.ErrElementDisabled)
	}
	if scroll {
		if _, err := cdpapi.Call(ctx, el.Session, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: el.Backend}); err != nil {
			if cdp.IsProtocolError(err) {
				return point{}, fail(driver.ErrElementNotVisible)
			}
			return point{}, fmt.Errorf("browser: scrolling the element into view: %w", err)
		}
	}
	p, err := t.uncoveredPoint(ctx, ps, el)
	if errors.Is(err, driver.ErrElementCovered) && scroll {
		// Covered where it is, such as under a fixed header: centered,
		// it may come clear.
		if err := callJS(ctx, el.Session, jsCall{this: el.Object}, centerJS, nil); err != nil {
			return point{}, err
		}
		p, err = t.uncoveredPoint(ctx, ps, el)
	}
	if err != nil {
		if errors.Is(err, driver.ErrElementNotVisible) || errors.Is(err, driver.ErrElementCovered) {
			return point{}, fail(err)
		}
		return point{}, err
	}
	return p, nil
}

var centerJS = loadScript("center")

// aimJS is freePoint's fast path: in one round trip, a point where a
// pointer hits an element of the top document that is rendered, enabled,
// wholly in view, still across a frame and uncovered, or null.
var aimJS = loadScript("aim")

// uncoveredPoint waits for el's box to stop moving and returns the first
// of its clickPoints that hits it, else a *CoveredError naming what the
// first point hits. No point in the viewport is ErrElementOffscreen, or
// ErrElementNotVisible when el has no area.
func (t *Tab) uncoveredPoint(ctx context.Context, ps *cdp.Session, el *element) (point, error) {
	quads, off, err := t.settledQuads(ctx, ps, el)
	if err != nil {
		return point{}, err
	}
	lv, err := layoutViewport(ctx, ps)
	if err != nil {
		return point{}, err
	}
	pts := clickPoints(quads, off.X, off.Y, float64(lv.ClientWidth), float64(lv.ClientHeight))
	if len(pts) == 0 {
		if !hasArea(quads) {
			return point{}, driver.ErrElementNotVisible
		}
		return point{}, driver.ErrElementOffscreen
	}
	var covered *driver.CoveredError
	for _, p := range pts {
		hit, err := t.hitTest(ctx, ps, el, p, lv, off)
		if err != nil {
			return point{}, err
		}
		if hit.Inside {
			return p, nil
		}
		if covered == nil {
			covered = &driver.CoveredError{By: hit.describe(), Ancestor: hit.Ancestor}
		}
	}
	return point{}, covered
}

// hasArea reports whether any quad covers a square pixel.
func hasArea(quads []dom.Quad) bool {
	for _, q := range quads {
		if len(q) >= 8 && quadArea(q) >= 1 {
			return true
		}
	}
	return false
}

var elementStateJS = loadScript("element_state")

// settledQuads returns el's content quads, relative to the viewport of its
// own frame, and the offset of that frame's viewport in the page's, once
// two reads a frame apart agree or stableWait has passed. An element
// without quads is ErrElementNotVisible.
func (t *Tab) settledQuads(ctx context.Context, ps *cdp.Session, el *element) ([]dom.Quad, point, error) {
	read := func() ([]dom.Quad, point, error) {
		q, err := cdpapi.Call(ctx, el.Session, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: el.Backend})
		if err != nil {
			if cdp.IsProtocolError(err) {
				return nil, point{}, driver.ErrElementNotVisible
			}
			return nil, point{}, fmt.Errorf("browser: reading the element's box: %w", err)
		}
		if len(q.Quads) == 0 {
			return nil, point{}, driver.ErrElementNotVisible
		}
		var off point
		if el.Session != ps {
			if off.X, off.Y, err = t.frameOffset(ctx, ps, el.Session); err != nil {
				return nil, point{}, err
			}
		}
		return q.Quads, off, nil
	}
	deadline := time.Now().Add(stableWait)
	prev, prevOff, err := read()
	if err != nil {
		return nil, point{}, err
	}
	for {
		awaitFrame(ctx, el.Session)
		cur, off, err := read()
		if err != nil {
			return nil, point{}, err
		}
		if (sameQuads(prev, cur) && off == prevOff) || time.Now().After(deadline) {
			return cur, off, nil
		}
		prev, prevOff = cur, off
	}
}

// awaitFrameJS waits for the next animation frame, at most 100 ms.
var awaitFrameJS = loadScript("await_frame")

// awaitFrame waits, at most frameWait, for the next animation frame.
func awaitFrame(ctx context.Context, s *cdp.Session) {
	awaitFrameWithin(ctx, s, frameWait)
}

// awaitFrameWithin waits for the next animation frame, at most 100 ms
// once the renderer runs the script, and at most d (never more than half
// the time left) for a renderer that is busy.
func awaitFrameWithin(ctx context.Context, s *cdp.Session, d time.Duration) {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	callJS(ctx, s, jsCall{}, awaitFrameJS, nil)
}

// layoutViewport returns the page's layout viewport: its scroll offset and
// size in CSS pixels.
func layoutViewport(ctx context.Context, s *cdp.Session) (*page.LayoutViewport, error) {
	m, err := cdpapi.Call(ctx, s, page.GetLayoutMetrics, cdpapi.Empty{})
	if err != nil {
		return nil, fmt.Errorf("browser: reading layout metrics: %w", err)
	}
	if m.CSSLayoutViewport == nil {
		return nil, errors.New("browser: reading layout metrics: no layout viewport")
	}
	return m.CSSLayoutViewport, nil
}

// hitTest reports what a pointer at p (page viewport) hits, relative to
// el. For an element in an out-of-process iframe, the page must hit an
// iframe there and the frame's renderer el; off is where that frame's
// viewport lies in the page's.
func (t *Tab) hitTest(ctx context.Context, ps *cdp.Session, el *element, p point, lv *page.LayoutViewport, off point) (nodeInfo, error) {
	x, y := p.X+float64(lv.PageX), p.Y+float64(lv.PageY) // hit tests take document coordinates
	if el.Session == ps {
		return nodeAt(ctx, ps, x, y, el)
	}
	top, err := nodeAt(ctx, ps, x, y, nil)
	if err != nil || (top.Tag != "iframe" && top.Tag != "frame") {
		return top, err
	}
	flv, err := layoutViewport(ctx, el.Session)
	if err != nil {
		return nodeInfo{}, err
	}
	return nodeAt(ctx, el.Session, p.X-off.X+float64(flv.PageX), p.Y-off.Y+float64(flv.PageY), el)
}

// nodeAt hit-tests the document s renders at (x, y) in its document
// coordinates and describes the node hit relative to el, which may be nil.
func nodeAt(ctx context.Context, s *cdp.Session, x, y float64, el *element) (nodeInfo, error) {
	yes := true
	h, err := cdpapi.Call(ctx, s, dom.GetNodeForLocation, dom.GetNodeForLocationParams{X: int64(x), Y: int64(y), IncludeUserAgentShadowDOM: &yes})
	if err != nil {
		if cdp.IsProtocolError(err) {
			return nodeInfo{Tag: "nothing"}, nil // no node there, such as past the end of a short page
		}
		return nodeInfo{}, fmt.Errorf("browser: hit-testing: %w", err)
	}
	mine := el != nil && el.Session == s
	if mine && h.BackendNodeID == el.Backend {
		return nodeInfo{Inside: true}, nil
	}
	r, err := cdpapi.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: h.BackendNodeID, ObjectGroup: elementGroup})
	if err != nil || r.Object == nil || r.Object.ObjectID == "" {
		if err == nil || cdp.IsProtocolError(err) {
			return nodeInfo{Tag: "nothing"}, nil
		}
		return nodeInfo{}, fmt.Errorf("browser: hit-testing: %w", err)
	}
	hit := &element{Session: s, Backend: h.BackendNodeID, Object: r.Object.ObjectID}
	defer hit.Release(ctx)
	var info nodeInfo
	if mine {
		err = callJS(ctx, s, jsCall{this: hit.Object}, hitTestJS, &info, &runtime.CallArgument{ObjectID: el.Object})
		if !cdp.IsProtocolError(err) {
			return info, err
		}
		// The node hit is in another document than el: inside it when
		// el is the <iframe> of that document, else describe it alone.
		if o, err := cdpapi.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: h.FrameID}); err == nil && o.BackendNodeID == el.Backend {
			return nodeInfo{Inside: true}, nil
		}
	}
	err = callJS(ctx, s, jsCall{this: hit.Object}, hitTestJS, &info)
	return info, err
}

// hitTestJS runs on the node hit, with the element aimed at (or nothing).
// It names the outermost ancestor of the node hit that does not also hold
// the element — the overlay, not a line of its text. Parents are followed
// across shadow roots.
var hitTestJS = loadScript("hit_test")
