package browser

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdpinput "github.com/chromedp/cdproto/input"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// ClickAt clicks at a point of the viewport with real mouse events, as
// [Tab.Click] does at an element's point, and waits for what it set off.
// A point outside the viewport wraps ErrInvalidArgument.
func (t *Tab) ClickAt(ctx context.Context, o driver.PointOptions) (*driver.PointResult, error) {
	button, buttons, err := mouseButton(o.Button)
	if err != nil {
		return nil, err
	}
	clicks := int64(max(o.Clicks, 1))
	if clicks > 3 {
		return nil, fmt.Errorf("%w: clickCount %d is not 1, 2 or 3", driver.ErrInvalidArgument, clicks)
	}
	ps, res, err := t.aimAt(ctx, o.X, o.Y)
	if err != nil {
		return nil, err
	}
	p := point{o.X, o.Y}
	res.Dialog, err = t.perform(ctx, ps, ps, func(ctx context.Context) error {
		return clickPoint(ctx, ps, p, button, buttons, clicks, o.Modifiers)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// MoveMouseTo moves the mouse to a point of the viewport, which hovers
// what is there.
func (t *Tab) MoveMouseTo(ctx context.Context, x, y float64) (*driver.PointResult, error) {
	ps, res, err := t.aimAt(ctx, x, y)
	if err != nil {
		return nil, err
	}
	res.Dialog, err = t.perform(ctx, ps, ps, func(ctx context.Context) error {
		return mouse(ctx, ps, cdpinput.DispatchMouseEventTypeMouseMoved, point{x, y}, "", 0, 0, 0)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// DragAt drags with the left button from one point of the viewport to
// another, in steps, as a user's hand would.
func (t *Tab) DragAt(ctx context.Context, from, to driver.PointOptions) (*driver.PointResult, error) {
	ps, res, err := t.aimAt(ctx, from.X, from.Y)
	if err != nil {
		return nil, err
	}
	if _, _, err := t.aimAt(ctx, to.X, to.Y); err != nil {
		return nil, err
	}
	res.Dialog, err = t.perform(ctx, ps, ps, func(ctx context.Context) error {
		_, err := drag(ctx, ps, point{from.X, from.Y}, point{to.X, to.Y})
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ScrollAt turns the mouse wheel at a point of the viewport by dx, dy CSS
// pixels, which scrolls whatever scrolls there.
func (t *Tab) ScrollAt(ctx context.Context, x, y, dx, dy float64) (*driver.PointResult, error) {
	ps, res, err := t.aimAt(ctx, x, y)
	if err != nil {
		return nil, err
	}
	res.Dialog, err = t.perform(ctx, ps, ps, func(ctx context.Context) error {
		// Chromium wants both deltas, and the typed params leave out a
		// zero one.
		err := ps.Call(ctx, "Input.dispatchMouseEvent", map[string]any{
			"type": cdpinput.DispatchMouseEventTypeMouseWheel, "x": x, "y": y, "deltaX": dx, "deltaY": dy}, nil)
		if err != nil {
			return fmt.Errorf("browser: turning the mouse wheel: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// aimAt checks that (x, y) lies in the viewport and names what is there.
func (t *Tab) aimAt(ctx context.Context, x, y float64) (*cdp.Session, *driver.PointResult, error) {
	if math.IsNaN(x) || math.IsNaN(y) || x < 0 || y < 0 {
		return nil, nil, fmt.Errorf("%w: point (%g, %g) is outside the viewport", driver.ErrInvalidArgument, x, y)
	}
	ps, err := t.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	lv, err := layoutViewport(ctx, ps)
	if err != nil {
		return nil, nil, err
	}
	if x >= float64(lv.ClientWidth) || y >= float64(lv.ClientHeight) {
		return nil, nil, fmt.Errorf("%w: point (%g, %g) is outside the %dx%d viewport", driver.ErrInvalidArgument, x, y, lv.ClientWidth, lv.ClientHeight)
	}
	res := &driver.PointResult{X: x, Y: y, Hit: "nothing"}
	yes := true
	h, err := cdpapi.Call(ctx, ps, dom.GetNodeForLocation, dom.GetNodeForLocationParams{
		X: int64(x) + lv.PageX, Y: int64(y) + lv.PageY, IncludeUserAgentShadowDOM: &yes})
	if err != nil {
		if cdp.IsProtocolError(err) {
			return ps, res, nil // nothing there
		}
		return nil, nil, fmt.Errorf("browser: hit-testing: %w", err)
	}
	r, err := cdpapi.Call(ctx, ps, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: h.BackendNodeID, ObjectGroup: elementGroup})
	if err != nil || r.Object == nil || r.Object.ObjectID == "" {
		return ps, res, nil
	}
	hit := &element{Session: ps, Backend: h.BackendNodeID, Object: r.Object.ObjectID}
	defer hit.Release(ctx)
	var info nodeInfo
	if callJS(ctx, ps, jsCall{this: hit.Object}, pointHitJS, &info) == nil {
		res.Hit = info.describe()
	}
	return ps, res, nil
}

// pointHitJS describes the element at a point itself, not its ancestors.
var pointHitJS = loadScript("point_hit")

// imageScale is a tab's last viewport screenshot's scale, as the agent saw
// it: image pixels per CSS pixel, as float64 bits; 0 when none.
type imageScale struct{ bits atomic.Uint64 }

// SetImageScale records the scale of the viewport screenshot an agent was
// last shown of the tab (image pixels per CSS pixel), so that coordinates
// read off it can be mapped back; 0 forgets it.
func (t *Tab) SetImageScale(s float64) { t.imgScale.bits.Store(math.Float64bits(s)) }

// ImageScale returns what SetImageScale recorded, or 0.
func (t *Tab) ImageScale() float64 { return math.Float64frombits(t.imgScale.bits.Load()) }
