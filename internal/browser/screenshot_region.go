package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	_ "golang.org/x/image/webp" // DecodeConfig for webp captures

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// viewportRegion returns the visible part of the page in document
// coordinates.
func viewportRegion(ctx context.Context, s *cdp.Session) (rect, error) {
	m, err := cdpapi.Call(ctx, s, page.GetLayoutMetrics, cdpapi.Empty{})
	if err != nil {
		return rect{}, fmt.Errorf("browser: reading layout metrics: %w", err)
	}
	v := m.CSSVisualViewport
	if v == nil {
		return rect{}, errors.New("browser: reading layout metrics: no visual viewport")
	}
	return rect{X: v.PageX, Y: v.PageY, W: v.ClientWidth, H: v.ClientHeight}, nil
}

// viewportAndRatio returns the visible part of the page in document
// coordinates and the device pixel ratio, in one round trip. A page whose
// script cannot run (dpr 0) falls back on the layout metrics.
func viewportAndRatio(ctx context.Context, s *cdp.Session) (rect, float64, error) {
	var v struct{ X, Y, W, H, DPR float64 }
	err := callJS(ctx, s, jsCall{}, viewportRatioJS, &v)
	if err == nil && v.DPR > 0 && v.W > 0 && v.H > 0 {
		return rect{X: v.X, Y: v.Y, W: v.W, H: v.H}, v.DPR, nil
	}
	if err != nil && !errors.As(err, new(*scriptError)) {
		return rect{}, 0, fmt.Errorf("browser: reading the viewport: %w", err)
	}
	r, err := viewportRegion(ctx, s)
	return r, 0, err
}

// viewportRatioJS reads the visual viewport and the device pixel ratio.
var viewportRatioJS = loadScript("viewport_dpr")

// scrollThroughJS scrolls the page down by viewport heights, waiting two
// frames at each stop so lazy content starts loading (skipping the part in
// view), then waits for images still loading, all within a budget in ms,
// scrolls back to where the page was and returns the device pixel ratio.
var scrollThroughJS = loadScript("scroll_through")

// awaitTwoFramesJS waits for two animation frames, at most 100 ms.
var awaitTwoFramesJS = loadScript("await_two_frames")

// devicePixelRatioJS reads the page's device pixels per CSS pixel.
var devicePixelRatioJS = loadScript("device_pixel_ratio")

// fullPageRegion scrolls through the page and returns its whole document
// and the device pixel ratio, and whether the document is all in view, so
// that a viewport capture, without a clip beyond it, shows all of it.
func fullPageRegion(ctx context.Context, s *cdp.Session) (r rect, dpr float64, fits bool, err error) {
	budget := scrollBudget
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(d)/4)
	}
	if err := callJS(ctx, s, jsCall{}, scrollThroughJS, &dpr, budget.Milliseconds()); err != nil {
		return rect{}, 0, false, fmt.Errorf("browser: scrolling through the page: %w", err)
	}
	m, err := cdpapi.Call(ctx, s, page.GetLayoutMetrics, cdpapi.Empty{})
	if err != nil {
		return rect{}, 0, false, fmt.Errorf("browser: reading layout metrics: %w", err)
	}
	c := m.CSSContentSize
	if c == nil {
		return rect{}, 0, false, errors.New("browser: reading layout metrics: no content size")
	}
	v := m.CSSVisualViewport
	fits = v != nil && c.X == 0 && c.Y == 0 && v.PageX == 0 && v.PageY == 0 && v.Scale == 1 &&
		c.Width <= v.ClientWidth && c.Height <= v.ClientHeight
	return rect{X: c.X, Y: c.Y, W: c.Width, H: c.Height}, max(dpr, 0), fits, nil
}

// elementRegion scrolls the element into view and returns its border box
// in the page's document coordinates, and whether all of it is in view.
func (t *Tab) elementRegion(ctx context.Context, s *cdp.Session, ref, selector string) (r rect, inView bool, err error) {
	el, err := t.element(ctx, ref, selector)
	if err != nil {
		return rect{}, false, err
	}
	defer el.Release(ctx)
	notVisible := &driver.ElementError{Ref: el.Ref, Selector: selector, Err: driver.ErrElementNotVisible}
	if _, err := cdpapi.Call(ctx, el.Session, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: el.Backend}); err != nil {
		if cdp.IsProtocolError(err) {
			return rect{}, false, notVisible
		}
		return rect{}, false, fmt.Errorf("browser: scrolling the element into view: %w", err)
	}
	r, err = borderBox(ctx, el.Session, el.Backend)
	if err != nil {
		if cdp.IsProtocolError(err) {
			return rect{}, false, notVisible
		}
		return rect{}, false, err
	}
	if r.W < 1 || r.H < 1 {
		return rect{}, false, notVisible
	}
	if el.Session != s {
		// The box is relative to its out-of-process frame's viewport.
		x, y, err := t.frameOffset(ctx, s, el.Session)
		if err != nil {
			return rect{}, false, err
		}
		r.X, r.Y = r.X+x, r.Y+y
		// Let the frame's compositor catch up with the scroll.
		callJS(ctx, el.Session, jsCall{}, awaitTwoFramesJS, nil)
	}
	v, err := viewportRegion(ctx, s)
	if err != nil {
		return rect{}, false, err
	}
	inView = r.X >= 0 && r.Y >= 0 && r.X+r.W <= v.W && r.Y+r.H <= v.H
	r.X, r.Y = r.X+v.X, r.Y+v.Y
	return r, inView, nil
}

// borderBox returns the bounding rectangle of a node's border box in its
// frame's viewport coordinates.
func borderBox(ctx context.Context, s *cdp.Session, backend cdpapi.BackendNodeID) (rect, error) {
	bm, err := cdpapi.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: backend})
	if err != nil {
		return rect{}, err
	}
	if bm.Model == nil || len(bm.Model.Border) < 8 {
		return rect{}, errors.New("browser: the element has no box model")
	}
	return quadBounds(bm.Model.Border), nil
}

// contentOrigin returns the top-left corner of a node's content box in its
// frame's viewport coordinates.
func contentOrigin(ctx context.Context, s *cdp.Session, backend cdpapi.BackendNodeID) (float64, float64, error) {
	bm, err := cdpapi.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: backend})
	if err != nil {
		return 0, 0, fmt.Errorf("browser: locating an iframe: %w", err)
	}
	if bm.Model == nil || len(bm.Model.Content) < 8 {
		return 0, 0, errors.New("browser: locating an iframe: no box model")
	}
	r := quadBounds(bm.Model.Content)
	return r.X, r.Y, nil
}

// quadBounds returns the bounding rectangle of a quad (x1 y1 … x4 y4),
// which a transform may have turned.
func quadBounds(q dom.Quad) rect {
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for i := 0; i+1 < len(q); i += 2 {
		minX, maxX = math.Min(minX, q[i]), math.Max(maxX, q[i])
		minY, maxY = math.Min(minY, q[i+1]), math.Max(maxY, q[i+1])
	}
	return rect{X: minX, Y: minY, W: maxX - minX, H: maxY - minY}
}

// frameOffset returns where the viewport of the out-of-process frame that
// fs renders lies in the viewport of the page session ps: the sum of the
// content-box origins of the <iframe> elements between them.
func (t *Tab) frameOffset(ctx context.Context, ps, fs *cdp.Session) (x, y float64, err error) {
	for depth := 0; fs != ps; depth++ {
		if depth > maxFrameDepth {
			return 0, 0, errors.New("browser: locating an iframe: frames nested too deep")
		}
		t.fmu.Lock()
		var id cdpapi.FrameID
		candidates := []*cdp.Session{ps}
		for fid, s := range t.frames {
			if s == fs {
				id = fid
			} else {
				candidates = append(candidates, s)
			}
		}
		t.fmu.Unlock()
		if id == "" {
			return 0, 0, errors.New("browser: locating an iframe: its frame is gone")
		}
		// The <iframe> element lives in the parent frame's renderer: the
		// page's, or another out-of-process frame's.
		var parent *cdp.Session
		var owner cdpapi.BackendNodeID
		for _, c := range candidates {
			o, err := cdpapi.Call(ctx, c, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: id})
			if err == nil && o.BackendNodeID != 0 {
				parent, owner = c, o.BackendNodeID
				break
			}
			if ctx.Err() != nil {
				return 0, 0, ctx.Err()
			}
		}
		if parent == nil {
			return 0, 0, errors.New("browser: locating an iframe: no frame owns it")
		}
		ox, oy, err := contentOrigin(ctx, parent, owner)
		if err != nil {
			return 0, 0, err
		}
		x, y, fs = x+ox, y+oy, parent
	}
	return x, y, nil
}

// devicePixelRatio returns the page's device pixels per CSS pixel.
func devicePixelRatio(ctx context.Context, s *cdp.Session) (float64, error) {
	var dpr float64
	err := callJS(ctx, s, jsCall{}, devicePixelRatioJS, &dpr)
	if errors.As(err, new(*scriptError)) || dpr <= 0 {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("browser: reading the device pixel ratio: %w", err)
	}
	return dpr, nil
}
