package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdpinput "github.com/chromedp/cdproto/input"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Pointer timing.
const (
	// stableWait bounds the wait for an element's box to stop moving.
	stableWait = 500 * time.Millisecond
	// frameWait bounds the wait for one animation frame.
	frameWait = 200 * time.Millisecond
	// dragSteps is how many moves a drag makes between its two points.
	dragSteps = 10
	// dragLateStart bounds the wait for a drag that starts on the last move.
	dragLateStart = 50 * time.Millisecond
)

// afterClickJS reports what a click did that no tree or event tells:
// a submit the browser refused, a download link.
var afterClickJS = loadScript("after_click")

// afterClickWait bounds the look at the element after a click.
const afterClickWait = time.Second

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
// waited for until the new document loads (at most driver.ActionNavWait), so the
// caller sees the new page. The context bounds the whole call.
func (t *Tab) Click(ctx context.Context, o driver.ClickOptions) (*driver.ClickResult, error) {
	button, buttons, err := mouseButton(o.Button)
	if err != nil {
		return nil, err
	}
	ps, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	// With Force only the element's presence is waited for: a covered
	// or hidden element is clicked through the DOM instead.
	var p point
	var aimErr error
	el, err := t.actionable(ctx, o.Ref, o.Selector, func(ctx context.Context, el *element) error {
		p, aimErr = t.freePoint(ctx, ps, el, o.Selector, true, true)
		if o.Force && (errors.Is(aimErr, driver.ErrElementCovered) || errors.Is(aimErr, driver.ErrElementNotVisible)) {
			return nil
		}
		return aimErr
	})
	if err != nil {
		return nil, err
	}
	res := &driver.ClickResult{}
	defer t.releaseUnlessBlocked(ctx, &res.Dialog, el)
	if err := aimErr; err != nil {
		if o.Force && (errors.Is(err, driver.ErrElementCovered) || errors.Is(err, driver.ErrElementNotVisible)) {
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
		return clickPoint(ctx, ps, p, button, buttons, clicks, o.Modifiers)
	})
	if err != nil {
		return nil, err
	}
	if !res.Dialog && button == "left" {
		// A submit the browser refused shows only its bubble, and a
		// download link starts no navigation: ask the element. A
		// navigation has taken it away, and the call fails harmlessly.
		actx, cancel := context.WithTimeout(ctx, afterClickWait)
		var after *struct {
			NotSubmitted *driver.Invalid
			Download     bool
		}
		if callJS(actx, el.Session, jsCall{this: el.Object}, afterClickJS, &after) == nil && after != nil {
			res.NotSubmitted = after.NotSubmitted
			if after.Download {
				t.downloading.Store(true)
			}
		}
		cancel()
	}
	return res, nil
}

// releaseUnlessBlocked releases the elements' handles, unless a dialog
// blocks the page or its renderer crashed (or cdpkit stopped a dialog
// loop), where the release would never be answered. The handles then die
// with their document.
func (t *Tab) releaseUnlessBlocked(ctx context.Context, dialog *bool, els ...*element) {
	if *dialog || t.crashed.Load() || t.CheckDialog() != nil {
		return
	}
	for _, el := range els {
		el.Release(ctx)
	}
}

// Hover moves the mouse over an element (ref or selector, see
// [Tab.Element]) at a point no other element covers, found as for
// [Tab.Click], whose errors it shares.
func (t *Tab) Hover(ctx context.Context, ref, selector string) (*driver.HoverResult, error) {
	ps, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	var p point
	el, err := t.actionable(ctx, ref, selector, func(ctx context.Context, el *element) (err error) {
		p, err = t.freePoint(ctx, ps, el, selector, false, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &driver.HoverResult{}
	defer t.releaseUnlessBlocked(ctx, &res.Dialog, el)
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
	callJS(ctx, el.Session, jsCall{this: el.Object}, hoveredJS, &res.Hovered)
	return res, nil
}

var hoveredJS = loadScript("hovered")

// Drag presses the mouse on one element, moves it in steps to another and
// releases it there, each at a point found as for [Tab.Click], whose
// errors it shares. Pages that drag on mouse events see every move; an
// HTML5 drag (draggable elements) is intercepted when it starts and
// continued with drag events (dragenter, dragover, drop), which works the
// same headless or not. When the target is out of view it is scrolled to,
// and the source must then still be in view.
func (t *Tab) Drag(ctx context.Context, o driver.DragOptions) (*driver.DragResult, error) {
	ps, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	res := &driver.DragResult{}
	from, err := t.actionable(ctx, o.FromRef, o.FromSelector, func(ctx context.Context, el *element) error {
		_, err := t.freePoint(ctx, ps, el, o.FromSelector, false, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer t.releaseUnlessBlocked(ctx, &res.Dialog, from)
	to, err := t.actionable(ctx, o.ToRef, o.ToSelector, nil)
	if err != nil {
		return nil, err
	}
	defer t.releaseUnlessBlocked(ctx, &res.Dialog, to)
	src, err := t.freePoint(ctx, ps, from, o.FromSelector, false, true)
	if err != nil {
		return nil, err
	}
	dst, err := t.freePoint(ctx, ps, to, o.ToSelector, false, false)
	if errors.Is(err, driver.ErrElementOffscreen) {
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
	// The mouse moves in steps until the page starts an HTML5 drag; from
	// there the drag goes straight to dst (dragenter, dragover, drop), as a person's quick drag (and
	// Playwright's) does. Drag events at every step would each land
	// before the page is ready for the next: SortableJS ignores dragover
	// for 30 ms after each reorder, so the list settled one place past
	// the source and the drop on dst was ignored.
	for i := 1; i <= dragSteps; i++ {
		if started(); data != nil {
			break
		}
		f := float64(i) / dragSteps
		p := point{math.Round(src.X + (dst.X-src.X)*f), math.Round(src.Y + (dst.Y-src.Y)*f)}
		if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, p, left, 1, 0, 0); err != nil {
			return false, err
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
		if err := dragEvent(cdpinput.DispatchDragEventTypeDragEnter, dst); err != nil {
			return true, err
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
	return "", 0, fmt.Errorf("%w: button %q is not left, right or middle", driver.ErrInvalidArgument, name)
}

// clickPoint moves the mouse to p and clicks there clicks times (a double
// click's second press has clickCount 2, which fires dblclick).
func clickPoint(ctx context.Context, ps *cdp.Session, p point, button cdpinput.MouseButton, buttons, clicks, modifiers int64) error {
	if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, p, "", 0, 0, modifiers); err != nil {
		return err
	}
	for n := int64(1); n <= clicks; n++ {
		if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMousePressed, p, button, buttons, n, modifiers); err != nil {
			return err
		}
		if err := mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseReleased, p, button, 0, n, modifiers); err != nil {
			return err
		}
	}
	return nil
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
func forceClick(ctx context.Context, el *element, o driver.ClickOptions) error {
	button := map[string]int{"": 0, "left": 0, "middle": 1, "right": 2}[o.Button]
	return callJS(ctx, el.Session, jsCall{this: el.Object}, forceClickJS, nil, button, o.Double, o.Modifiers)
}

var forceClickJS = loadScript("force_click")
