package firefox

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// The coordinate tools (click_at, move_mouse, drag_at, scroll_at), for
// agents that see the page as an image: pointer and wheel actions of
// input.performActions at a point of the tab's viewport, in CSS pixels.

// pointHitJS checks that (x, y) lies in the layout viewport and describes
// the element there, itself rather than its ancestors, as Chromium's
// hit test does.
const pointHitJS = `(x, y) => {
	const w = document.documentElement.clientWidth || innerWidth, h = document.documentElement.clientHeight || innerHeight;
	if (x >= w || y >= h) return {outside: true, w, h};
	const n = document.elementFromPoint(x, y);
	if (!n) return {};
	return {hit: {tag: n.localName, id: n.id || '', classes: Array.from(n.classList || []).slice(0, 4),
		text: String(n.innerText || n.textContent || '').slice(0, 200)}};
}`

// aimPoint checks that (x, y) lies in the viewport and names what is
// there.
func (t *Tab) aimPoint(ctx context.Context, x, y float64) (*driver.PointResult, error) {
	if math.IsNaN(x) || math.IsNaN(y) || x < 0 || y < 0 {
		return nil, fmt.Errorf("%w: point (%g, %g) is outside the viewport", driver.ErrInvalidArgument, x, y)
	}
	if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	var r struct {
		Outside bool
		W, H    int
		Hit     *struct {
			Tag     string   `json:"tag"`
			ID      string   `json:"id"`
			Classes []string `json:"classes"`
			Text    string   `json:"text"`
		}
	}
	if err := t.callJSON(ctx, pointHitJS, nil, &r, x, y); err != nil {
		return nil, fmt.Errorf("firefox: hit-testing: %w", t.wrap(err))
	}
	if r.Outside {
		return nil, fmt.Errorf("%w: point (%g, %g) is outside the %dx%d viewport", driver.ErrInvalidArgument, x, y, r.W, r.H)
	}
	res := &driver.PointResult{X: x, Y: y, Hit: "nothing"}
	if h := r.Hit; h != nil {
		var b strings.Builder
		b.WriteString(h.Tag)
		if b.Len() == 0 {
			b.WriteString("element")
		}
		if h.ID != "" {
			b.WriteString("#" + h.ID)
		}
		for i, c := range h.Classes {
			if i == 3 {
				b.WriteString(".…")
				break
			}
			b.WriteString("." + c)
		}
		if s := strings.Join(strings.Fields(h.Text), " "); s != "" {
			if rs := []rune(s); len(rs) > 40 {
				s = string(rs[:40]) + "…"
			}
			fmt.Fprintf(&b, " %q", s)
		}
		res.Hit = b.String()
	}
	return res, nil
}

func mouseActions(actions []any) []any {
	return []any{map[string]any{"type": "pointer", "id": "cdpkit-mouse", "parameters": map[string]any{"pointerType": "mouse"}, "actions": actions}}
}

func pointerMove(x, y float64) map[string]any {
	return map[string]any{"type": "pointerMove", "x": int(math.Round(x)), "y": int(math.Round(y))}
}

// ClickAt implements driver.TabDriver: a click at a point of the
// viewport, with modifiers held, waiting for what it set off as Click
// does.
func (t *Tab) ClickAt(ctx context.Context, o driver.PointOptions) (*driver.PointResult, error) {
	button, err := buttonNumber(o.Button)
	if err != nil {
		return nil, err
	}
	clicks := max(o.Clicks, 1)
	if clicks > 3 {
		return nil, fmt.Errorf("%w: clickCount %d is not 1, 2 or 3", driver.ErrInvalidArgument, clicks)
	}
	res, err := t.aimPoint(ctx, o.X, o.Y)
	if err != nil {
		return nil, err
	}
	// Actions run tick by tick across sources: the keys go down while the
	// pointer pauses, stay down (pausing) while it clicks, then go up.
	var keysDown, keysUp, pauses []any
	for _, m := range modifierBits {
		if o.Modifiers&m.bit != 0 {
			keysDown = append(keysDown, map[string]any{"type": "keyDown", "value": m.key})
			keysUp = append(keysUp, map[string]any{"type": "keyUp", "value": m.key})
			pauses = append(pauses, map[string]any{"type": "pause"})
		}
	}
	click := []any{pointerMove(o.X, o.Y)}
	for range clicks {
		click = append(click, map[string]any{"type": "pointerDown", "button": button}, map[string]any{"type": "pointerUp", "button": button})
	}
	actions := mouseActions(append(pauses, click...))
	if len(keysDown) > 0 {
		keys := keysDown
		for range click {
			keys = append(keys, map[string]any{"type": "pause"})
		}
		actions = append([]any{map[string]any{"type": "key", "id": "cdpkit-keys", "actions": append(keys, keysUp...)}}, actions...)
	}
	if res.Dialog, err = t.perform(ctx, "", actions); err != nil {
		return nil, err
	}
	return res, nil
}

// MoveMouseTo implements driver.TabDriver: the mouse moved to a point of
// the viewport, which hovers what is there.
func (t *Tab) MoveMouseTo(ctx context.Context, x, y float64) (*driver.PointResult, error) {
	res, err := t.aimPoint(ctx, x, y)
	if err != nil {
		return nil, err
	}
	if res.Dialog, err = t.perform(ctx, "", mouseActions([]any{pointerMove(x, y)})); err != nil {
		return nil, err
	}
	return res, nil
}

// DragAt implements driver.TabDriver: a drag with the left button from
// one point of the viewport to another, in steps.
func (t *Tab) DragAt(ctx context.Context, from, to driver.PointOptions) (*driver.PointResult, error) {
	res, err := t.aimPoint(ctx, from.X, from.Y)
	if err != nil {
		return nil, err
	}
	if _, err := t.aimPoint(ctx, to.X, to.Y); err != nil {
		return nil, err
	}
	moves := []any{pointerMove(from.X, from.Y), map[string]any{"type": "pointerDown", "button": 0}}
	for i := 1; i <= dragSteps; i++ {
		m := pointerMove(from.X+(to.X-from.X)*float64(i)/dragSteps, from.Y+(to.Y-from.Y)*float64(i)/dragSteps)
		m["duration"] = 16
		moves = append(moves, m)
	}
	moves = append(moves, map[string]any{"type": "pointerUp", "button": 0})
	if res.Dialog, err = t.perform(ctx, "", mouseActions(moves)); err != nil {
		return nil, err
	}
	return res, nil
}

// ScrollAt implements driver.TabDriver: the mouse wheel turned at a point
// of the viewport by dx, dy CSS pixels.
func (t *Tab) ScrollAt(ctx context.Context, x, y, dx, dy float64) (*driver.PointResult, error) {
	res, err := t.aimPoint(ctx, x, y)
	if err != nil {
		return nil, err
	}
	wheel := []any{map[string]any{"type": "wheel", "id": "cdpkit-wheel", "actions": []any{map[string]any{
		"type": "scroll", "x": int(math.Round(x)), "y": int(math.Round(y)), "deltaX": int(math.Round(dx)), "deltaY": int(math.Round(dy)),
	}}}}
	if res.Dialog, err = t.perform(ctx, "", wheel); err != nil {
		return nil, err
	}
	return res, nil
}

// SetImageScale implements driver.TabDriver: the scale of the viewport
// screenshot an agent was last shown of the tab (image pixels per CSS
// pixel), so that coordinates read off it can be mapped back.
func (t *Tab) SetImageScale(s float64) { t.imgScale.Store(math.Float64bits(s)) }

// ImageScale implements driver.TabDriver: what SetImageScale recorded,
// or 0.
func (t *Tab) ImageScale() float64 { return math.Float64frombits(t.imgScale.Load()) }
