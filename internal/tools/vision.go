package tools

import (
	"context"
	"math"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// The vision tools act at coordinates read off a screenshot, for models
// that look at the page rather than at its refs. x and y are pixels of the
// tab's last viewport screenshot as the agent was shown it (downscaled or
// not); cdpkit maps them back to CSS pixels. Before any screenshot they
// are CSS pixels.

type clickAtArgs struct {
	X          float64  `json:"x" jsonschema:"px in the last viewport screenshot"`
	Y          float64  `json:"y" jsonschema:"px in the last viewport screenshot"`
	Button     string   `json:"button,omitempty" jsonschema:"left, right or middle"`
	ClickCount int      `json:"clickCount,omitempty" jsonschema:"1 (default), 2 or 3"`
	Modifiers  []string `json:"modifiers,omitempty" jsonschema:"Alt, Control, Meta, Shift"`
	actionArgs

	mods int64 // parsed by check
}

type moveMouseArgs struct {
	X float64 `json:"x" jsonschema:"px in the last viewport screenshot"`
	Y float64 `json:"y" jsonschema:"px in the last viewport screenshot"`
	actionArgs
}

type dragAtArgs struct {
	FromX float64 `json:"fromX" jsonschema:"px in the last viewport screenshot"`
	FromY float64 `json:"fromY"`
	ToX   float64 `json:"toX"`
	ToY   float64 `json:"toY"`
	actionArgs
}

type scrollAtArgs struct {
	X      float64 `json:"x" jsonschema:"px in the last viewport screenshot"`
	Y      float64 `json:"y"`
	DeltaX float64 `json:"deltaX,omitempty" jsonschema:"wheel distance in CSS px, right is positive"`
	DeltaY float64 `json:"deltaY,omitempty" jsonschema:"wheel distance in CSS px, down is positive"`
	actionArgs
}

// visionTools are offered by the vision profile (and full).
func visionTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "click_at",
			Description: "Click at x, y of the last viewport screenshot (its pixels, downscaled or not) with real mouse events. " +
				"Returns what was hit and changes.",
			Changes: ReportChanges,
		}, clickAt),
		defineOn(Tool{
			Name:        "move_mouse",
			Description: "Move the mouse to x, y of the last viewport screenshot, hovering what is there.",
			Changes:     ReportChanges,
		}, moveMouse),
		defineOn(Tool{
			Name:        "drag_at",
			Description: "Drag with the left button from fromX, fromY to toX, toY of the last viewport screenshot.",
			Changes:     ReportChanges,
		}, dragAt),
		defineOn(Tool{
			Name:        "scroll_at",
			Description: "Turn the mouse wheel at x, y of the last viewport screenshot by deltaX, deltaY CSS px.",
			Changes:     ReportChanges,
		}, scrollAt),
	}
}

type pointData struct {
	X   float64 `json:"x"` // CSS px of the viewport
	Y   float64 `json:"y"`
	Hit string  `json:"hit"`
	changed
}

// cssPoint maps screenshot pixels to CSS pixels of the viewport.
func cssPoint(tab driver.TabDriver, x, y float64) (float64, float64) {
	p, ok := tab.(driver.Pointer)
	if !ok {
		return x, y
	}
	s := p.ImageScale()
	if s <= 0 {
		return x, y
	}
	return x / s, y / s
}

func checkPoint(names ...float64) error {
	for _, v := range names {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return errorf(InvalidArgs, false, "give coordinates read off the last viewport screenshot, from 0", "coordinate %g is out of range", v)
		}
	}
	return nil
}

func pointResult(res *driver.PointResult) *Result {
	return &Result{Data: &pointData{X: math.Round(res.X*10) / 10, Y: math.Round(res.Y*10) / 10, Hit: res.Hit}}
}

func (in *clickAtArgs) check(context.Context, *Env) error {
	switch in.Button {
	case "", "left", "right", "middle":
	default:
		return errorf(InvalidArgs, false, "use left, right or middle", "button %q is not a mouse button", in.Button)
	}
	if in.ClickCount < 0 || in.ClickCount > 3 {
		return errorf(InvalidArgs, false, "use 1, 2 or 3", "clickCount %d is out of range", in.ClickCount)
	}
	var err error
	if in.mods, err = parseModifiers(in.Modifiers); err != nil {
		return err
	}
	return checkPoint(in.X, in.Y)
}

func clickAt(ctx context.Context, env *Env, d *door, in clickAtArgs) (*Result, error) {
	x, y := cssPoint(d.tab, in.X, in.Y)
	pt, err := role[driver.Pointer](env, d.tab, "click_at")
	if err != nil {
		return nil, err
	}
	res, err := pt.ClickAt(ctx, driver.PointOptions{X: x, Y: y, Button: in.Button, Clicks: in.ClickCount, Modifiers: in.mods})
	if err != nil {
		return nil, err
	}
	return pointResult(res), nil
}

func (in *moveMouseArgs) check(context.Context, *Env) error { return checkPoint(in.X, in.Y) }

func moveMouse(ctx context.Context, env *Env, d *door, in moveMouseArgs) (*Result, error) {
	x, y := cssPoint(d.tab, in.X, in.Y)
	pt, err := role[driver.Pointer](env, d.tab, "move_mouse")
	if err != nil {
		return nil, err
	}
	res, err := pt.MoveMouseTo(ctx, x, y)
	if err != nil {
		return nil, err
	}
	return pointResult(res), nil
}

func (in *dragAtArgs) check(context.Context, *Env) error {
	return checkPoint(in.FromX, in.FromY, in.ToX, in.ToY)
}

func dragAt(ctx context.Context, env *Env, d *door, in dragAtArgs) (*Result, error) {
	fx, fy := cssPoint(d.tab, in.FromX, in.FromY)
	tx, ty := cssPoint(d.tab, in.ToX, in.ToY)
	pt, err := role[driver.Pointer](env, d.tab, "drag_at")
	if err != nil {
		return nil, err
	}
	res, err := pt.DragAt(ctx, driver.PointOptions{X: fx, Y: fy}, driver.PointOptions{X: tx, Y: ty})
	if err != nil {
		return nil, err
	}
	return pointResult(res), nil
}

func (in *scrollAtArgs) check(context.Context, *Env) error {
	if in.DeltaX == 0 && in.DeltaY == 0 {
		return errorf(InvalidArgs, false, "give deltaY (down is positive) or deltaX", "no scroll distance")
	}
	return checkPoint(in.X, in.Y)
}

func scrollAt(ctx context.Context, env *Env, d *door, in scrollAtArgs) (*Result, error) {
	x, y := cssPoint(d.tab, in.X, in.Y)
	pt, err := role[driver.Pointer](env, d.tab, "scroll_at")
	if err != nil {
		return nil, err
	}
	res, err := pt.ScrollAt(ctx, x, y, in.DeltaX, in.DeltaY)
	if err != nil {
		return nil, err
	}
	return pointResult(res), nil
}
