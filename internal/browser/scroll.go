package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// ScrollOptions say where to scroll: by Direction, to an element (Ref or
// Selector), or to X and Y; exactly one of the three.
type ScrollOptions struct {
	// Direction is "up", "down", "left" or "right": the page, or when it
	// cannot scroll that way the scrollable element in the middle of the
	// viewport, moves by Pixels, or 80% of its visible size when Pixels is
	// zero.
	Direction string
	Pixels    float64
	// Ref or Selector names an element to scroll into view (see
	// [Tab.Element]).
	Ref      string
	Selector string
	// X and Y scroll the page to a position; a nil one keeps its axis.
	X, Y *float64
}

// ScrollResult is where a scroll ended.
type ScrollResult struct {
	ScrollX        float64 `json:"scrollX"`
	ScrollY        float64 `json:"scrollY"`
	PageWidth      float64 `json:"pageWidth"`
	PageHeight     float64 `json:"pageHeight"`
	ViewportWidth  float64 `json:"viewportWidth"`
	ViewportHeight float64 `json:"viewportHeight"`
	// Container names the element scrolled when it was not the page; the
	// numbers above are then its own.
	Container string `json:"container,omitempty"`
	// InViewport and FullyInViewport say, for a scroll to an element,
	// whether any of it shows, and all of it.
	InViewport      *bool `json:"inViewport,omitempty"`
	FullyInViewport *bool `json:"fullyInViewport,omitempty"`
}

// Scroll scrolls the page instantly, without smooth scrolling, and returns
// where it ended. Scrolling to an element that is not rendered is an
// *ElementError wrapping ErrElementNotVisible.
func (t *Tab) Scroll(ctx context.Context, o ScrollOptions) (*ScrollResult, error) {
	modes := 0
	for _, set := range []bool{o.Direction != "", o.Ref != "" || o.Selector != "", o.X != nil || o.Y != nil} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return nil, fmt.Errorf("%w: give one of direction, an element, or x and y", ErrInvalidArgument)
	}
	if o.Pixels < 0 || math.IsNaN(o.Pixels) || math.IsInf(o.Pixels, 0) {
		return nil, fmt.Errorf("%w: pixels must be positive", ErrInvalidArgument)
	}
	ps, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Direction != "":
		ux, uy, err := scrollAxis(o.Direction)
		if err != nil {
			return nil, err
		}
		return scrollPage(ctx, ps, fmt.Sprintf("(%s)(%s, %s, %s)", scrollByJS, jsNumber(ux), jsNumber(uy), jsNumber(o.Pixels)))
	case o.X != nil || o.Y != nil:
		x, y := math.NaN(), math.NaN()
		if o.X != nil {
			x = *o.X
		}
		if o.Y != nil {
			y = *o.Y
		}
		return scrollPage(ctx, ps, fmt.Sprintf("(%s)(%s, %s)", scrollToJS, jsNumber(x), jsNumber(y)))
	}
	el, err := t.Element(ctx, o.Ref, o.Selector)
	if err != nil {
		return nil, err
	}
	defer el.Release(ctx)
	hidden := &ElementError{Ref: el.Ref, Selector: o.Selector, Err: ErrElementNotVisible}
	if _, err := cdpapi.Call(ctx, el.Session, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: el.Backend}); err != nil {
		if _, ok := err.(*cdp.ProtocolError); ok {
			return nil, hidden
		}
		return nil, fmt.Errorf("browser: scrolling the element into view: %w", err)
	}
	quads, off, err := t.settledQuads(ctx, ps, el)
	if errors.Is(err, ErrElementNotVisible) || (err == nil && !hasArea(quads)) {
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
	res, err := scrollPage(ctx, ps, fmt.Sprintf("(%s)(NaN, NaN)", scrollToJS))
	if err != nil {
		return nil, err
	}
	res.InViewport, res.FullyInViewport = &in, &fully
	return res, nil
}

// jsNumber formats a number as a JavaScript literal.
func jsNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// scrollPage runs a scroll expression and decodes the position it reports.
func scrollPage(ctx context.Context, ps *cdp.Session, expr string) (*ScrollResult, error) {
	v, err := evaluate(ctx, ps, expr)
	if err != nil {
		return nil, fmt.Errorf("browser: scrolling: %w", err)
	}
	var r struct {
		X, Y, W, H, VW, VH float64
		Container          *nodeInfo
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("browser: scrolling: %w", err)
	}
	res := &ScrollResult{ScrollX: r.X, ScrollY: r.Y, PageWidth: r.W, PageHeight: r.H, ViewportWidth: r.VW, ViewportHeight: r.VH}
	if r.Container != nil {
		res.Container = r.Container.describe()
	}
	return res, nil
}

// scrollReportJS reports the scroll position of el, or of the page when el
// is null.
const scrollReportJS = `(el) => {
	const se = document.scrollingElement || document.documentElement;
	if (!el) return {X: scrollX, Y: scrollY, W: se.scrollWidth, H: se.scrollHeight, VW: innerWidth, VH: innerHeight};
	return {X: el.scrollLeft, Y: el.scrollTop, W: el.scrollWidth, H: el.scrollHeight, VW: el.clientWidth, VH: el.clientHeight,
		Container: {tag: el.localName, id: el.id || '', classes: Array.from(el.classList).slice(0, 4)}};
}`

// scrollByJS scrolls by (ux, uy) × amount, where amount is pixels or 80%
// of the visible size: the page when it can move that way, else the
// innermost element under the middle of the viewport that can.
const scrollByJS = `(ux, uy, pixels) => {
	const report = ` + scrollReportJS + `;
	const se = document.scrollingElement || document.documentElement;
	const room = (pos, client, size) => (ux + uy > 0 ? size - client - pos : pos) > 1;
	const pageCan = uy ? room(scrollY, innerHeight, se.scrollHeight) : room(scrollX, innerWidth, se.scrollWidth);
	let el = null;
	if (!pageCan) {
		const scrollable = e => {
			const o = getComputedStyle(e)[uy ? 'overflowY' : 'overflowX'];
			return (o === 'auto' || o === 'scroll' || o === 'overlay') &&
				(uy ? room(e.scrollTop, e.clientHeight, e.scrollHeight) : room(e.scrollLeft, e.clientWidth, e.scrollWidth));
		};
		for (let e = document.elementFromPoint(innerWidth / 2, innerHeight / 2); e && e !== se && e !== document.body; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) {
			if (scrollable(e)) { el = e; break; }
		}
	}
	const amount = pixels || Math.round(0.8 * (el ? (uy ? el.clientHeight : el.clientWidth) : (uy ? innerHeight : innerWidth)));
	(el || window).scrollBy({left: ux * amount, top: uy * amount, behavior: 'instant'});
	return report(el);
}`

// scrollToJS scrolls the page to (x, y); NaN keeps an axis.
const scrollToJS = `(x, y) => {
	const report = ` + scrollReportJS + `;
	scrollTo({left: isNaN(x) ? scrollX : x, top: isNaN(y) ? scrollY : y, behavior: 'instant'});
	return report(null);
}`
