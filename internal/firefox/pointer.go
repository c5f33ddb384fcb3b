package firefox

import (
	"context"
	"fmt"
	"math"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// dragSteps is how many pointer moves a drag makes between its ends, so
// that pages that drag on mouse events see it move.
const dragSteps = 10

// Drag implements driver.TabDriver: the mouse pressed on one element,
// moved in steps to the other and released there, in one
// input.performActions, each end aimed at as for Click. Headless Firefox
// does not carry an HTML5 drag (a draggable element) from pointer
// actions: one is delivered as drag events instead (dragstart, dragenter,
// dragover, drop, dragend, with one DataTransfer), as Chromium delivers
// those it intercepts. Both elements must be in the same document.
func (t *Tab) Drag(ctx context.Context, o driver.DragOptions) (*driver.DragResult, error) {
	fx, fy, fromFrame, err := t.aimAt(ctx, o.FromRef, o.FromSelector)
	if err != nil {
		return nil, err
	}
	tx, ty, toFrame, err := t.aimAt(ctx, o.ToRef, o.ToSelector)
	if err != nil {
		return nil, err
	}
	if fromFrame != toFrame {
		return nil, unsupported("a drag between two frames")
	}
	if o.ToRef != "" || o.ToSelector != "" {
		// Aiming at the target may have scrolled the source away: aim
		// again, and refuse a source now out of view as Chromium does.
		if fx, fy, _, err = t.aimAt(ctx, o.FromRef, o.FromSelector); err != nil {
			return nil, err
		}
	}
	driver.Step(ctx, "dragging")
	fromEl, err := t.element(ctx, o.FromRef, o.FromSelector)
	if err != nil {
		return nil, err
	}
	var html5 bool
	if err := t.callJSON(ctx, html5DragJS, fromEl, &html5, fx, fy, tx, ty); err != nil {
		return nil, elementErr(o.FromRef, o.FromSelector, t.wrap(err))
	}
	if html5 {
		t.settleAction(ctx, t.mark())
		return &driver.DragResult{HTML5: true}, nil
	}
	moves := []any{map[string]any{"type": "pointerMove", "x": fx, "y": fy},
		map[string]any{"type": "pointerDown", "button": 0}}
	for i := 1; i <= dragSteps; i++ {
		x := fx + int(math.Round(float64(tx-fx)*float64(i)/dragSteps))
		y := fy + int(math.Round(float64(ty-fy)*float64(i)/dragSteps))
		moves = append(moves, map[string]any{"type": "pointerMove", "x": x, "y": y, "duration": 16})
	}
	moves = append(moves, map[string]any{"type": "pointerUp", "button": 0})
	dialog, err := t.perform(ctx, fromFrame, []any{map[string]any{"type": "pointer", "id": "cdpkit-mouse",
		"parameters": map[string]any{"pointerType": "mouse"}, "actions": moves}})
	if err != nil {
		return nil, elementErr(o.FromRef, o.FromSelector, err)
	}
	return &driver.DragResult{Dialog: dialog}, nil
}

// scrollScript is a shared scroll script with js/scroll_report.js bound
// as scrollReport, as Chromium runs it.
func scrollScript(name string) string {
	return "(function() { const scrollReport = (" + sharedScript("scroll_report") + "); return (" + sharedScript(name) + "); })()"
}

var (
	scrollByJS = scrollScript("scroll_by")
	scrollToJS = scrollScript("scroll_to")
	// scrollIntoJS scrolls an element into view when it is not wholly in
	// it, and says whether any or all of it then shows; null when it is
	// not rendered.
	scrollIntoJS = `function() {
		const fits = () => {
			const r = this.getBoundingClientRect();
			if (r.width === 0 && r.height === 0 && this.getClientRects().length === 0) return null;
			const w = innerWidth, h = innerHeight;
			return {in: r.right > 0 && r.bottom > 0 && r.left < w && r.top < h,
				fully: r.left >= 0 && r.top >= 0 && r.right <= w && r.bottom <= h};
		};
		const before = fits();
		if (before === null) return null;
		if (!before.fully) this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
		return fits();
	}`
)

// html5DragJS delivers an HTML5 drag of this, an element that is or is in
// a draggable one, from (fx, fy) to the element at (tx, ty), and reports
// true; for an element no HTML5 drag starts on it reports false, and the
// drag is left to pointer actions.
const html5DragJS = `async function(fx, fy, tx, ty) {
	const src = this.closest('[draggable="true"]') || (this.closest('a[href], img') && this.getAttribute('draggable') !== 'false' ? this : null);
	if (!src) return false;
	const dt = new DataTransfer();
	const fire = (el, type, x, y) => {
		const e = new DragEvent(type, {bubbles: true, cancelable: type !== 'dragleave' && type !== 'dragend', composed: true,
			clientX: x, clientY: y, dataTransfer: dt});
		return el.dispatchEvent(e);
	};
	// A person's drag spreads its events over frames; pages (Sortable)
	// finish setting up a drag in a task after dragstart.
	const frame = () => new Promise(r => { requestAnimationFrame(() => setTimeout(r, 0)); setTimeout(r, 50); });
	if (!fire(src, 'dragstart', fx, fy)) return true; // the page cancelled the drag
	await frame();
	const dst = document.elementFromPoint(tx, ty);
	if (dst) {
		fire(dst, 'dragenter', tx, ty);
		fire(dst, 'dragover', tx, ty);
		await frame();
		if (!fire(dst, 'dragover', tx, ty)) fire(dst, 'drop', tx, ty);
		else fire(dst, 'dragleave', tx, ty);
	}
	fire(src, 'dragend', tx, ty);
	await frame();
	return true;
}`

type scrollReport struct {
	X, Y, W, H, VW, VH float64
	Container          *struct {
		Tag     string   `json:"tag"`
		ID      string   `json:"id"`
		Classes []string `json:"classes"`
	}
}

func (r *scrollReport) result() *driver.ScrollResult {
	res := &driver.ScrollResult{ScrollX: r.X, ScrollY: r.Y, PageWidth: r.W, PageHeight: r.H, ViewportWidth: r.VW, ViewportHeight: r.VH}
	if c := r.Container; c != nil {
		res.Container = c.Tag
		if c.ID != "" {
			res.Container += "#" + c.ID
		}
		for _, cl := range c.Classes {
			res.Container += "." + cl
		}
	}
	return res
}

// scrollPage runs a scroll script, then waits (at most
// driver.ActionFrameWait, or half the time left) until the page's
// observers have seen the scroll, as Chromium's Scroll does: a feed that
// loads more when its end comes into view has done so in the result, and
// two scrolls never pass without a rendering update between them that an
// observer needs to fire again.
func (t *Tab) scrollPage(ctx context.Context, script string, args ...any) (*driver.ScrollResult, error) {
	var r scrollReport
	if err := t.callJSON(ctx, script, nil, &r, args...); err != nil {
		return nil, fmt.Errorf("firefox: scrolling: %w", t.wrap(err))
	}
	wctx, cancel := context.WithTimeout(ctx, driver.HalfLeft(ctx, driver.ActionFrameWait))
	t.callJSON(wctx, scrollSeenJS, nil, nil)
	cancel()
	return r.result(), nil
}

// scrollSeenJS resolves once the page's observers have seen a scroll.
var scrollSeenJS = sharedScript("scroll_seen")

// Scroll implements driver.TabDriver with Chromium's page scripts: by a
// direction (the page, or the scrollable element in the middle of the
// viewport), to a position, or an element into view.
func (t *Tab) Scroll(ctx context.Context, o driver.ScrollOptions) (*driver.ScrollResult, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	switch {
	case o.Direction != "":
		ux, uy, err := o.Axis()
		if err != nil {
			return nil, err
		}
		if err := t.CheckDialog(); err != nil {
			return nil, err
		}
		return t.scrollPage(ctx, scrollByJS, ux, uy, o.Pixels)
	case o.X != nil || o.Y != nil:
		if err := t.CheckDialog(); err != nil {
			return nil, err
		}
		return t.scrollPage(ctx, scrollToJS, o.X, o.Y)
	}
	el, err := t.element(ctx, o.Ref, o.Selector)
	if err != nil {
		return nil, err
	}
	var fit *struct{ In, Fully bool }
	if err := t.callJSON(ctx, scrollIntoJS, el, &fit); err != nil {
		return nil, elementErr(o.Ref, o.Selector, t.wrap(err))
	}
	if fit == nil {
		return nil, &driver.ElementError{Ref: o.Ref, Selector: o.Selector, Err: driver.ErrElementNotVisible}
	}
	res, err := t.scrollPage(ctx, scrollToJS, nil, nil)
	if err != nil {
		return nil, err
	}
	res.InViewport, res.FullyInViewport = &fit.In, &fit.Fully
	return res, nil
}
