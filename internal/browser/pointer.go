package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	cdpinput "github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Pointer errors. They come wrapped in an *ElementError.
var (
	// ErrElementCovered means every point where a click could land on the
	// element is covered by another element; see CoveredError.
	ErrElementCovered = errors.New("browser: element is covered")
	// ErrElementDisabled means the element is a disabled form control,
	// which ignores clicks.
	ErrElementDisabled = errors.New("browser: element is disabled")
	// ErrElementOffscreen is an ErrElementNotVisible for an element that
	// is rendered but has no point in the viewport even after scrolling,
	// such as one clipped by a container scrolled elsewhere.
	ErrElementOffscreen = fmt.Errorf("%w: it is outside the viewport", ErrElementNotVisible)
)

// CoveredError names what a pointer would hit instead of the element.
type CoveredError struct {
	// By describes the element hit, such as `div#overlay.modal "Accept
	// cookies"`.
	By string
	// Ancestor is set when what is hit is an ancestor of the element: the
	// element itself takes no pointer events (pointer-events: none).
	Ancestor bool
}

func (e *CoveredError) Error() string { return "browser: element " + e.Reason() }
func (e *CoveredError) Unwrap() error { return ErrElementCovered }

// Reason completes a sentence whose subject is the element.
func (e *CoveredError) Reason() string {
	if e.Ancestor {
		return "takes no pointer events: they land on its ancestor " + e.By
	}
	return "is covered by " + e.By
}

// Pointer timing.
const (
	// stableWait bounds the wait for an element's box to stop moving.
	stableWait = 500 * time.Millisecond
	// frameWait bounds the wait for one animation frame.
	frameWait = 200 * time.Millisecond
	// actionNavWait bounds the wait for a navigation an action started
	// to load; it also never takes more than half the time left.
	actionNavWait = 10 * time.Second
	// dragSteps is how many moves a drag makes between its two points.
	dragSteps = 10
	// dragLateStart bounds the wait for a drag that starts on the last move.
	dragLateStart = 50 * time.Millisecond
)

// ClickOptions say what to click and how.
type ClickOptions struct {
	// Ref or Selector names the element (see [Tab.Element]).
	Ref      string
	Selector string
	// Button is "left" (the default), "right" or "middle".
	Button string
	// Double clicks twice, the second time with clickCount 2, which fires
	// dblclick.
	Double bool
	// Modifiers are the keys held during the click: a bit field of
	// input.ModAlt, ModCtrl, ModMeta and ModShift.
	Modifiers int64
	// Force clicks through the DOM (click events dispatched on the element)
	// when the element is covered, out of the viewport or not rendered.
	Force bool
}

// ClickResult says how an element was clicked.
type ClickResult struct {
	// X and Y are where, in CSS pixels of the page's viewport; zero when
	// Forced.
	X, Y float64
	// Forced is set when the click went through the DOM, not the mouse.
	Forced bool
	// Dialog is set when the click opened a JavaScript dialog that waits
	// for an answer: the page is blocked until [Tab.HandleDialog].
	Dialog bool
}

// Click clicks an element like a user: it scrolls it into view, waits (at
// most stableWait) for its box to stop moving, finds a point of it that no
// other element covers — its center, else the center of one of its
// quarters; when all are covered, such as by a fixed header, it scrolls
// the element to the middle of the viewport and looks again — and sends
// real mouse events there. An element inside an out-of-process iframe is
// clicked through the page as well.
//
// A hidden element (not rendered, invisible or of no size) is an
// *ElementError wrapping ErrElementNotVisible (ErrElementOffscreen when it
// is rendered out of reach); a covered one wraps a *CoveredError; a
// disabled form control wraps ErrElementDisabled. With Force, hidden and
// covered elements are clicked through the DOM instead; disabled ones
// never are.
//
// A JavaScript dialog the click opens that waits for an answer ends the
// call at once (Dialog is set); a navigation of the tab it starts is
// waited for until the new document loads (at most actionNavWait), so the
// caller sees the new page. The context bounds the whole call.
func (t *Tab) Click(ctx context.Context, o ClickOptions) (*ClickResult, error) {
	button, buttons, err := mouseButton(o.Button)
	if err != nil {
		return nil, err
	}
	ps, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	el, err := t.Element(ctx, o.Ref, o.Selector)
	if err != nil {
		return nil, err
	}
	res := &ClickResult{}
	defer releaseUnlessBlocked(ctx, &res.Dialog, el)
	p, err := t.freePoint(ctx, ps, el, o.Selector, true, true)
	if err != nil {
		if o.Force && (errors.Is(err, ErrElementCovered) || errors.Is(err, ErrElementNotVisible)) {
			res.Forced = true
			res.Dialog, err = t.perform(ctx, ps, el.Session, func(ctx context.Context) error { return forceClick(ctx, el, o) })
			if err != nil {
				return nil, err
			}
			return res, nil
		}
		return nil, err
	}
	clicks := int64(1)
	if o.Double {
		clicks = 2
	}
	res.X, res.Y = p.X, p.Y
	res.Dialog, err = t.perform(ctx, ps, el.Session, func(ctx context.Context) error {
		if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, p, "", 0, 0, o.Modifiers); err != nil {
			return err
		}
		for n := int64(1); n <= clicks; n++ {
			if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMousePressed, p, button, buttons, n, o.Modifiers); err != nil {
				return err
			}
			if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseReleased, p, button, 0, n, o.Modifiers); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// releaseUnlessBlocked releases the elements' handles, unless a dialog
// blocks the page, which would hold the call until ctx ends. The handles
// then die with their document.
func releaseUnlessBlocked(ctx context.Context, dialog *bool, els ...*Element) {
	if *dialog {
		return
	}
	for _, el := range els {
		el.Release(ctx)
	}
}

// HoverResult says where the mouse went and whether the element is
// hovered.
type HoverResult struct {
	X, Y float64
	// Hovered reports whether the element matches :hover afterwards.
	Hovered bool
	// Dialog is as for [ClickResult].
	Dialog bool
}

// Hover moves the mouse over an element (ref or selector, see
// [Tab.Element]) at a point no other element covers, found as for
// [Tab.Click], whose errors it shares.
func (t *Tab) Hover(ctx context.Context, ref, selector string) (*HoverResult, error) {
	ps, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	el, err := t.Element(ctx, ref, selector)
	if err != nil {
		return nil, err
	}
	res := &HoverResult{}
	defer releaseUnlessBlocked(ctx, &res.Dialog, el)
	p, err := t.freePoint(ctx, ps, el, selector, false, true)
	if err != nil {
		return nil, err
	}
	res.X, res.Y = p.X, p.Y
	res.Dialog, err = t.perform(ctx, ps, el.Session, func(ctx context.Context) error {
		return mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, p, "", 0, 0, 0)
	})
	if err != nil {
		return nil, err
	}
	if res.Dialog {
		return res, nil
	}
	// A hover that navigated leaves no element to ask: not hovered.
	callOnElement(ctx, el, hoveredJS, &res.Hovered)
	return res, nil
}

const hoveredJS = `function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	return !!e && e.matches(':hover');
}`

// DragOptions name the element to drag and the one to drop it on, each by
// ref or selector (see [Tab.Element]).
type DragOptions struct {
	FromRef, FromSelector string
	ToRef, ToSelector     string
}

// DragResult says how a drag went.
type DragResult struct {
	// HTML5 is set when the page started an HTML5 drag (dragstart) and the
	// drop was delivered as drag events.
	HTML5 bool
	// Dialog is as for [ClickResult].
	Dialog bool
}

// Drag presses the mouse on one element, moves it in steps to another and
// releases it there, each at a point found as for [Tab.Click], whose
// errors it shares. Pages that drag on mouse events see every move; an
// HTML5 drag (draggable elements) is intercepted when it starts and
// continued with drag events (dragenter, dragover, drop), which works the
// same headless or not. When the target is out of view it is scrolled to,
// and the source must then still be in view.
func (t *Tab) Drag(ctx context.Context, o DragOptions) (*DragResult, error) {
	ps, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	res := &DragResult{}
	from, err := t.Element(ctx, o.FromRef, o.FromSelector)
	if err != nil {
		return nil, err
	}
	defer releaseUnlessBlocked(ctx, &res.Dialog, from)
	to, err := t.Element(ctx, o.ToRef, o.ToSelector)
	if err != nil {
		return nil, err
	}
	defer releaseUnlessBlocked(ctx, &res.Dialog, to)
	src, err := t.freePoint(ctx, ps, from, o.FromSelector, false, true)
	if err != nil {
		return nil, err
	}
	dst, err := t.freePoint(ctx, ps, to, o.ToSelector, false, false)
	if errors.Is(err, ErrElementOffscreen) {
		if dst, err = t.freePoint(ctx, ps, to, o.ToSelector, false, true); err == nil {
			src, err = t.freePoint(ctx, ps, from, o.FromSelector, false, false)
		}
	}
	if err != nil {
		return nil, err
	}
	res.Dialog, err = t.perform(ctx, ps, from.Session, func(ctx context.Context) error {
		html5, err := drag(ctx, ps, src, dst)
		res.HTML5 = html5
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// drag sends the mouse and drag events of a drag from src to dst.
func drag(ctx context.Context, ps *cdp.Session, src, dst point) (html5 bool, err error) {
	intercepted, stop := ps.SubscribeEvents("Input.dragIntercepted")
	defer stop()
	if _, err := cdpapi.Call(ctx, ps, cdpinput.SetInterceptDrags, cdpinput.SetInterceptDragsParams{Enabled: true}); err != nil {
		return false, fmt.Errorf("browser: intercepting drags: %w", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		cdpapi.Call(ctx, ps, cdpinput.SetInterceptDrags, cdpinput.SetInterceptDragsParams{Enabled: false})
	}()
	var data *cdpinput.DragData
	started := func() {
		for data == nil {
			select {
			case ev, ok := <-intercepted:
				var d cdpinput.EventDragIntercepted
				if !ok || jsonv2.Unmarshal(ev.Params, &d) != nil {
					return
				}
				data = d.Data
				if data == nil {
					data = &cdpinput.DragData{}
				}
			default:
				return
			}
		}
	}
	dragEvent := func(typ cdpinput.DispatchDragEventType, p point) error {
		_, err := cdpapi.Call(ctx, ps, cdpinput.DispatchDragEvent, cdpinput.DispatchDragEventParams{Type: typ, X: p.X, Y: p.Y, Data: data})
		if err != nil {
			return fmt.Errorf("browser: dragging: %w", err)
		}
		return nil
	}
	left := cdpinput.MouseButtonLeft
	if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, src, "", 0, 0, 0); err != nil {
		return false, err
	}
	if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMousePressed, src, left, 1, 1, 0); err != nil {
		return false, err
	}
	entered := false
	for i := 1; i <= dragSteps; i++ {
		f := float64(i) / dragSteps
		p := point{math.Round(src.X + (dst.X-src.X)*f), math.Round(src.Y + (dst.Y-src.Y)*f)}
		if started(); data == nil {
			if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, p, left, 1, 0, 0); err != nil {
				return false, err
			}
			continue
		}
		typ := cdpinput.DispatchDragEventTypeDragOver
		if !entered {
			typ, entered = cdpinput.DispatchDragEventTypeDragEnter, true
		}
		if err := dragEvent(typ, p); err != nil {
			return true, err
		}
	}
	if data == nil {
		// The drag may have started on the last move.
		select {
		case <-time.After(dragLateStart):
		case <-ctx.Done():
			return false, ctx.Err()
		}
		started()
	}
	if data != nil {
		if !entered {
			if err := dragEvent(cdpinput.DispatchDragEventTypeDragEnter, dst); err != nil {
				return true, err
			}
		}
		if err := dragEvent(cdpinput.DispatchDragEventTypeDragOver, dst); err != nil {
			return true, err
		}
		if err := dragEvent(cdpinput.DispatchDragEventTypeDrop, dst); err != nil {
			return true, err
		}
	}
	return data != nil, mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseReleased, dst, left, 0, 1, 0)
}

// mouseButton maps a button name to CDP's button and buttons bit.
func mouseButton(name string) (cdpinput.MouseButton, int64, error) {
	switch name {
	case "", "left":
		return cdpinput.MouseButtonLeft, 1, nil
	case "right":
		return cdpinput.MouseButtonRight, 2, nil
	case "middle":
		return cdpinput.MouseButtonMiddle, 4, nil
	}
	return "", 0, fmt.Errorf("%w: button %q is not left, right or middle", ErrInvalidArgument, name)
}

// mouse sends one mouse event at p, in CSS pixels of the page's viewport.
func mouse(ctx context.Context, ps *cdp.Session, typ cdpinput.DispatchMouseEventType, p point, button cdpinput.MouseButton, buttons, clicks, modifiers int64) error {
	_, err := cdpapi.Call(ctx, ps, cdpinput.DispatchMouseEvent, cdpinput.DispatchMouseEventParams{
		Type: typ, X: p.X, Y: p.Y, Button: button, Buttons: buttons, ClickCount: clicks, Modifiers: modifiers,
	})
	if err != nil {
		return fmt.Errorf("browser: sending %s: %w", typ, err)
	}
	return nil
}

// forceClick clicks el through the DOM: click() for a plain left click,
// else the mouse events a click with o's button and modifiers fires.
func forceClick(ctx context.Context, el *Element, o ClickOptions) error {
	button := map[string]int{"": 0, "left": 0, "middle": 1, "right": 2}[o.Button]
	return callOnElement(ctx, el, forceClickJS, nil, button, o.Double, o.Modifiers)
}

const forceClickJS = `function(button, double, mods) {
	const e = this.nodeType === 1 ? this : this.parentElement;
	const init = {bubbles: true, cancelable: true, composed: true, view: e.ownerDocument.defaultView, button, detail: 1,
		altKey: !!(mods & 1), ctrlKey: !!(mods & 2), metaKey: !!(mods & 4), shiftKey: !!(mods & 8)};
	if (button === 2) { e.dispatchEvent(new MouseEvent('contextmenu', init)); return; }
	if (button === 1) { e.dispatchEvent(new MouseEvent('auxclick', init)); return; }
	const click = () => mods ? e.dispatchEvent(new MouseEvent('click', init)) : e.click();
	click();
	if (double) {
		init.detail = 2;
		click();
		e.dispatchEvent(new MouseEvent('dblclick', init));
	}
}`

// callOnElement calls a fixed function on el with args passed as CDP
// arguments, and decodes its value into out unless out is nil.
func callOnElement(ctx context.Context, el *Element, fn string, out any, args ...any) error {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		v, err := json.Marshal(a)
		if err != nil {
			return err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: v})
	}
	yes := true
	res, err := cdpapi.Call(ctx, el.Session, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: el.Object, Arguments: cargs, ReturnByValue: &yes, AwaitPromise: &yes,
	})
	if err != nil {
		return fmt.Errorf("browser: calling into the page: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("browser: calling into the page: %s", res.ExceptionDetails.Text)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// freePoint returns a point of el, in CSS pixels of the page's viewport,
// where a pointer hits el (or something inside it). It first checks that
// el is rendered (and, with enabled, not disabled); with scroll it
// scrolls el into view, and when el is covered where it is (under a fixed
// header), to the middle of the viewport for a second try. Failures are
// *ElementErrors naming el by its ref or selector.
func (t *Tab) freePoint(ctx context.Context, ps *cdp.Session, el *Element, selector string, enabled, scroll bool) (point, error) {
	fail := func(err error) error { return &ElementError{Ref: el.Ref, Selector: selector, Err: err} }
	var st struct{ Hidden, Disabled bool }
	if err := callOnElement(ctx, el, elementStateJS, &st); err != nil {
		return point{}, err
	}
	switch {
	case st.Hidden:
		return point{}, fail(ErrElementNotVisible)
	case enabled && st.Disabled:
		return point{}, fail(ErrElementDisabled)
	}
	if scroll {
		if _, err := cdpapi.Call(ctx, el.Session, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: el.Backend}); err != nil {
			if _, ok := err.(*cdp.ProtocolError); ok {
				return point{}, fail(ErrElementNotVisible)
			}
			return point{}, fmt.Errorf("browser: scrolling the element into view: %w", err)
		}
	}
	p, err := t.uncoveredPoint(ctx, ps, el)
	if errors.Is(err, ErrElementCovered) && scroll {
		// Covered where it is, such as under a fixed header: centered,
		// it may come clear.
		if err := callOnElement(ctx, el, centerJS, nil); err != nil {
			return point{}, err
		}
		p, err = t.uncoveredPoint(ctx, ps, el)
	}
	if err != nil {
		if errors.Is(err, ErrElementNotVisible) || errors.Is(err, ErrElementCovered) {
			return point{}, fail(err)
		}
		return point{}, err
	}
	return p, nil
}

const centerJS = `function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
}`

// uncoveredPoint waits for el's box to stop moving and returns the first
// of its clickPoints that hits it, else a *CoveredError naming what the
// first point hits. No point in the viewport is ErrElementOffscreen, or
// ErrElementNotVisible when el has no area.
func (t *Tab) uncoveredPoint(ctx context.Context, ps *cdp.Session, el *Element) (point, error) {
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
			return point{}, ErrElementNotVisible
		}
		return point{}, ErrElementOffscreen
	}
	var covered *CoveredError
	for _, p := range pts {
		hit, err := t.hitTest(ctx, ps, el, p, lv, off)
		if err != nil {
			return point{}, err
		}
		if hit.Inside {
			return p, nil
		}
		if covered == nil {
			covered = &CoveredError{By: hit.describe(), Ancestor: hit.Ancestor}
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

const elementStateJS = `function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	if (!e || !e.isConnected) return {Hidden: true};
	const visible = e.checkVisibility ? e.checkVisibility({visibilityProperty: true}) :
		e.getClientRects().length > 0 && getComputedStyle(e).visibility === 'visible';
	return {Hidden: !visible, Disabled: e.matches(':disabled')};
}`

// settledQuads returns el's content quads, relative to the viewport of its
// own frame, and the offset of that frame's viewport in the page's, once
// two reads a frame apart agree or stableWait has passed. An element
// without quads is ErrElementNotVisible.
func (t *Tab) settledQuads(ctx context.Context, ps *cdp.Session, el *Element) ([]dom.Quad, point, error) {
	read := func() ([]dom.Quad, point, error) {
		q, err := cdpapi.Call(ctx, el.Session, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: el.Backend})
		if err != nil {
			if _, ok := err.(*cdp.ProtocolError); ok {
				return nil, point{}, ErrElementNotVisible
			}
			return nil, point{}, fmt.Errorf("browser: reading the element's box: %w", err)
		}
		if len(q.Quads) == 0 {
			return nil, point{}, ErrElementNotVisible
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

// awaitFrame waits, at most frameWait, for the next animation frame.
func awaitFrame(ctx context.Context, s *cdp.Session) {
	ctx, cancel := context.WithTimeout(ctx, frameWait)
	defer cancel()
	evaluate(ctx, s, `new Promise(r => { requestAnimationFrame(() => r(0)); setTimeout(() => r(0), 100); })`)
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
func (t *Tab) hitTest(ctx context.Context, ps *cdp.Session, el *Element, p point, lv *page.LayoutViewport, off point) (nodeInfo, error) {
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
func nodeAt(ctx context.Context, s *cdp.Session, x, y float64, el *Element) (nodeInfo, error) {
	yes := true
	h, err := cdpapi.Call(ctx, s, dom.GetNodeForLocation, dom.GetNodeForLocationParams{X: int64(x), Y: int64(y), IncludeUserAgentShadowDOM: &yes})
	if err != nil {
		if _, ok := err.(*cdp.ProtocolError); ok {
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
		if _, ok := err.(*cdp.ProtocolError); ok || err == nil {
			return nodeInfo{Tag: "nothing"}, nil
		}
		return nodeInfo{}, fmt.Errorf("browser: hit-testing: %w", err)
	}
	hit := &Element{Session: s, Backend: h.BackendNodeID, Object: r.Object.ObjectID}
	defer hit.Release(ctx)
	var info nodeInfo
	if mine {
		err = callOnElementArgs(ctx, hit, hitTestJS, &info, &runtime.CallArgument{ObjectID: el.Object})
		if _, ok := errors.AsType[*cdp.ProtocolError](err); !ok {
			return info, err
		}
		// The node hit is in another document than el: inside it when
		// el is the <iframe> of that document, else describe it alone.
		if o, err := cdpapi.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: h.FrameID}); err == nil && o.BackendNodeID == el.Backend {
			return nodeInfo{Inside: true}, nil
		}
	}
	err = callOnElementArgs(ctx, hit, hitTestJS, &info)
	return info, err
}

// callOnElementArgs is callOnElement with prepared CDP arguments, such as
// object handles.
func callOnElementArgs(ctx context.Context, el *Element, fn string, out any, args ...*runtime.CallArgument) error {
	yes := true
	res, err := cdpapi.Call(ctx, el.Session, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: el.Object, Arguments: args, ReturnByValue: &yes,
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("browser: hit-testing: %s", res.ExceptionDetails.Text)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return errors.New("browser: hit-testing: no result")
	}
	return json.Unmarshal(res.Result.Value, out)
}

// hitTestJS runs on the node hit, with the element aimed at (or nothing).
// It names the outermost ancestor of the node hit that does not also hold
// the element — the overlay, not a line of its text. Parents are followed
// across shadow roots.
const hitTestJS = `function(el) {
	const up = p => p.parentNode || (p.nodeType === 11 ? p.host : null);
	const holds = (a, b) => { for (let p = b; p; p = up(p)) if (p === a) return true; return false; };
	if (el && el.nodeType !== 1) el = el.parentElement; // a text node's ref: its element
	if (el && holds(el, this)) return {inside: true};
	let n = this.nodeType === 1 ? this : this.parentElement;
	if (!n) return {tag: this.nodeName.toLowerCase()};
	const ancestor = !!el && holds(n, el);
	if (!ancestor) {
		const stop = [n.ownerDocument.body, n.ownerDocument.documentElement];
		while (n.parentElement && !stop.includes(n.parentElement) && !(el && holds(n.parentElement, el))) n = n.parentElement;
	}
	return {ancestor, tag: n.localName, id: n.id || '', classes: Array.from(n.classList || []).slice(0, 4),
		text: String(n.innerText || n.textContent || '').slice(0, 200)};
}`

// act is perform for callers that need not know about a dialog.
func (t *Tab) act(ctx context.Context, ps, es *cdp.Session, fn func(ctx context.Context) error) error {
	_, err := t.perform(ctx, ps, es, fn)
	return err
}

// perform runs fn, which sends input to the page, and waits for what it set
// off. A JavaScript dialog that waits for an answer (see
// [Tab.RunUntilDialog]; or any dialog of es, the session of an element in
// an out-of-process frame) ends the call at once and sets dialog: the page
// runs nothing more until it is answered. A navigation of the tab is
// waited for until its new document loads, at most actionNavWait or half
// the time left. Otherwise act returns after one animation frame, by which
// time a navigation the input requested has started.
func (t *Tab) perform(ctx context.Context, ps, es *cdp.Session, fn func(ctx context.Context) error) (dialog bool, err error) {
	events, stop := ps.SubscribeEvents(actionEvents...)
	defer stop()
	Step(ctx, "sending the input")
	frameDialog := false
	dl, err := t.RunUntilDialog(ctx, func(ctx context.Context) error {
		if es != ps {
			var err error
			frameDialog, err = untilFrameDialog(ctx, es, fn)
			if err != nil || frameDialog {
				return err
			}
		} else if err := fn(ctx); err != nil {
			return err
		}
		return t.awaitNavigation(ctx, ps, events)
	})
	return dl != nil || frameDialog, err
}

// untilFrameDialog runs fn until it returns or a dialog opens in the
// frame session es, which the tab's dialog tracking does not follow.
func untilFrameDialog(ctx context.Context, es *cdp.Session, fn func(ctx context.Context) error) (dialog bool, err error) {
	dialogs, stop := es.SubscribeEvents("Page.javascriptDialogOpening")
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return false, err
	case <-dialogs:
		cancel()
		<-done
		return true, nil
	}
}

// eventsQuiet is how long awaitNavigation waits for one more event before
// deciding that the input set off no navigation.
const eventsQuiet = 5 * time.Millisecond

// awaitNavigation waits for a navigation that input set off, seen in
// events (actionEvents on ps), to load.
func (t *Tab) awaitNavigation(ctx context.Context, ps *cdp.Session, events <-chan cdp.Event) error {
	w := &navWatch{main: cdpapi.FrameID(t.id)}
	// Let the page run what the input queued, such as a form submission.
	awaitFrame(ctx, ps)
	// Events that came before the frame's reply may still be on their way
	// through the subscription's goroutine: read until a short quiet spell.
	quiet := time.NewTimer(eventsQuiet)
	defer quiet.Stop()
	for drained := false; !drained; {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			w.observe(ev)
			quiet.Reset(eventsQuiet)
		case <-quiet.C:
			drained = true
		case <-ctx.Done():
			return nil
		}
	}
	if !w.started || w.done() {
		return nil
	}
	wait := actionNavWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for !w.done() {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			w.observe(ev)
		case <-timer.C:
			return nil // still loading: the caller reports what it sees
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// actionEvents are the events act watches on the page's session.
var actionEvents = []string{
	"Page.frameRequestedNavigation", "Page.frameStartedNavigating", "Page.frameNavigated",
	"Page.lifecycleEvent", "Page.frameStoppedLoading",
}

// navWatch follows the events of the main frame after some input: whether
// a navigation started, and whether it is over.
type navWatch struct {
	main    cdpapi.FrameID // the main frame's id, which is the tab's target id
	started bool
	loader  cdpapi.LoaderID // the committed document's, once committed
	loaded  bool
	stopped bool
}

func (w *navWatch) observe(ev cdp.Event) {
	switch ev.Method {
	case "Page.frameRequestedNavigation":
		var e page.EventFrameRequestedNavigation
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main && e.Disposition == page.ClientNavigationDispositionCurrentTab {
			w.started = true
		}
	case "Page.frameStartedNavigating":
		var e page.EventFrameStartedNavigating
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main &&
			e.NavigationType != page.FrameStartedNavigatingNavigationTypeSameDocument &&
			e.NavigationType != page.FrameStartedNavigatingNavigationTypeHistorySameDocument {
			w.started = true
		}
	case "Page.frameNavigated":
		var e page.EventFrameNavigated
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.Frame != nil && e.Frame.ID == w.main && w.started {
			w.loader, w.loaded = e.Frame.LoaderID, false
		}
	case "Page.lifecycleEvent":
		var e page.EventLifecycleEvent
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main && e.Name == "load" && w.loader != "" && e.LoaderID == w.loader {
			w.loaded = true
		}
	case "Page.frameStoppedLoading":
		var e page.EventFrameStoppedLoading
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main && w.started {
			w.stopped = true
		}
	}
}

// done reports whether the navigation is over: its document loaded, or the
// frame stopped loading (a download, a 204, an error page).
func (w *navWatch) done() bool { return w.loaded || w.stopped }

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
