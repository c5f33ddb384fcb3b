package tools

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/input"
)

type clickArgs struct {
	elementArgs
	DblClick  bool     `json:"dblClick,omitempty"`
	Button    string   `json:"button,omitempty" jsonschema:"left, right or middle"`
	Modifiers []string `json:"modifiers,omitempty" jsonschema:"Alt, Control, Meta, Shift"`
	Force     bool     `json:"force,omitempty" jsonschema:"skip the checks"`
	actionArgs

	mods int64 // parsed by check
}

type hoverArgs struct {
	elementArgs
	actionArgs
}

type dragArgs struct {
	FromUID      string `json:"from_uid,omitempty" jsonschema:"ref of the element to drag (e12)"`
	FromSelector string `json:"from_selector,omitempty" jsonschema:"CSS selector of the element to drag, instead of from_uid"`
	ToUID        string `json:"to_uid,omitempty" jsonschema:"ref of the element to drop it on"`
	ToSelector   string `json:"to_selector,omitempty" jsonschema:"CSS selector of the element to drop it on, instead of to_uid"`
	actionArgs
}

type scrollArgs struct {
	Direction string   `json:"direction,omitempty" jsonschema:"up, down, left, right, top or bottom"`
	Pixels    float64  `json:"pixels,omitempty" jsonschema:"distance for direction, in CSS px (default 80% of the viewport)"`
	UID       string   `json:"uid,omitempty" jsonschema:"element ref to scroll into view, instead of direction"`
	Selector  string   `json:"selector,omitempty" jsonschema:"CSS selector of the element to scroll into view, instead of uid"`
	X         *float64 `json:"x,omitempty" jsonschema:"page position to scroll to, in CSS px; alone keeps the vertical position"`
	Y         *float64 `json:"y,omitempty" jsonschema:"page position to scroll to, in CSS px; alone keeps the horizontal position"`
	actionArgs
}

func pointerTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "click",
			Description: "Click with real mouse events. Element: uid, selector, role+name or byText (or text). " +
				"Waits waitMs (5000) until visible, stable, enabled, uncovered.",
			Changes: ReportChanges, Core: true,
			Verbs: []Verb{{Name: "click", Args: []string{"uid:ref"}, Summary: "click an element by ref (e12 or @e12)", Rank: 3}},
		}, click),
		defineOn(Tool{
			Name:        "hover",
			Description: "Move the mouse over an element, named and waited for as by click. Returns hovered (whether it matches :hover).",
			Changes:     ReportChanges,
			Verbs:       []Verb{{Name: "hover", Args: []string{"uid:ref"}, Summary: "move the mouse over an element", Rank: 15}},
		}, hover),
		defineOn(Tool{
			Name:        "drag",
			Description: "Drag an element onto another with the mouse (HTML5 drag and drop too).",
			Changes:     ReportChanges,
		}, dragTool),
		defineOn(Tool{
			Name: "scroll",
			Description: "Scroll by direction (80% of the viewport, or pixels), to an element (reports inViewport, fullyInViewport) " +
				"or to x/y. Returns scrollX, scrollY and the page and viewport sizes.",
			Changes: ReportChanges,
		}, scroll),
	}
}

// modifierBits maps modifier names, in lower case, to their bits.
var modifierBits = map[string]int64{
	"alt": input.ModAlt, "option": input.ModAlt,
	"control": input.ModCtrl, "ctrl": input.ModCtrl,
	"meta": input.ModMeta, "cmd": input.ModMeta, "command": input.ModMeta,
	"shift": input.ModShift,
}

// parseModifiers turns modifier names into a bit field.
func parseModifiers(names []string) (int64, error) {
	var bits int64
	for _, n := range names {
		b, ok := modifierBits[strings.ToLower(n)]
		if !ok {
			return 0, errorf(InvalidArgs, false, "use Alt, Control, Meta or Shift", "modifier %q is not a modifier key", n)
		}
		bits |= b
	}
	return bits, nil
}

// pointerData is what click, hover and drag return.
type pointerData struct {
	Forced  bool  `json:"forced,omitempty"`
	Hovered *bool `json:"hovered,omitempty"`
	// HTML5Drag says the drop went as HTML5 drag events.
	HTML5Drag bool `json:"html5Drag,omitempty"`
	// NotSubmitted names the control that kept the browser from
	// submitting the form the click submitted, and the message the
	// browser showed for it: "Email": Please fill out this field.
	NotSubmitted string `json:"notSubmitted,omitempty"`
	changed
}

// oneElement refuses uid and selector together.
func oneElement(uid, selector string) error {
	if uid != "" && selector != "" {
		return errorf(InvalidArgs, false, "give uid or selector, not both", "uid and selector do not go together")
	}
	return nil
}

func (in *clickArgs) check(context.Context, *Env) error {
	if err := in.checkTarget(); err != nil {
		return err
	}
	switch in.Button {
	case "", "left", "right", "middle":
	default:
		return errorf(InvalidArgs, false, "use left, right or middle", "button %q is not a mouse button", in.Button)
	}
	var err error
	in.mods, err = parseModifiers(in.Modifiers)
	return err
}

func click(ctx context.Context, _ *Env, d *door, in clickArgs) (*Result, error) {
	ctx, err := in.prepare(ctx, d.tab)
	if err != nil {
		return nil, err
	}
	res, err := d.tab.Click(ctx, driver.ClickOptions{
		Ref: in.UID, Selector: in.Selector, Button: in.Button, Double: in.DblClick, Modifiers: in.mods, Force: in.Force,
	})
	if err != nil {
		return nil, err
	}
	data := &pointerData{Forced: res.Forced}
	if inv := res.NotSubmitted; inv != nil {
		data.NotSubmitted = fmt.Sprintf("%q: %s", inv.Field, inv.Message)
	}
	return &Result{Data: data}, nil
}

func (in *hoverArgs) check(context.Context, *Env) error { return in.checkTarget() }

func hover(ctx context.Context, _ *Env, d *door, in hoverArgs) (*Result, error) {
	ctx, err := in.prepare(ctx, d.tab)
	if err != nil {
		return nil, err
	}
	res, err := d.tab.Hover(ctx, in.UID, in.Selector)
	if err != nil {
		return nil, err
	}
	return &Result{Data: &pointerData{Hovered: &res.Hovered}}, nil
}

func (in *dragArgs) check(context.Context, *Env) error {
	for _, e := range []struct{ name, uid, selector string }{{"from", in.FromUID, in.FromSelector}, {"to", in.ToUID, in.ToSelector}} {
		switch {
		case e.uid == "" && e.selector == "":
			return errorf(InvalidArgs, false, "take a snapshot and pass refs as from_uid and to_uid", "give %s_uid or %s_selector", e.name, e.name)
		case e.uid != "" && e.selector != "":
			return errorf(InvalidArgs, false, "give a uid or a selector, not both", "%s_uid and %s_selector do not go together", e.name, e.name)
		}
	}
	return nil
}

func dragTool(ctx context.Context, env *Env, d *door, in dragArgs) (*Result, error) {
	ds, err := role[driver.DragScroller](env, d.tab, "drag")
	if err != nil {
		return nil, err
	}
	res, err := ds.Drag(ctx, driver.DragOptions{FromRef: in.FromUID, FromSelector: in.FromSelector, ToRef: in.ToUID, ToSelector: in.ToSelector})
	if err != nil {
		return nil, err
	}
	return &Result{Data: &pointerData{HTML5Drag: res.HTML5}}, nil
}

type scrollData struct {
	*driver.ScrollResult
	changed
}

func (in *scrollArgs) check(context.Context, *Env) error {
	modes := 0
	for _, set := range []bool{in.Direction != "", in.UID != "" || in.Selector != "", in.X != nil || in.Y != nil} {
		if set {
			modes++
		}
	}
	switch {
	case modes != 1:
		return errorf(InvalidArgs, false, "give direction, uid (or selector), or x and/or y",
			"give exactly one of direction, an element, or a position")
	case in.Direction != "" && !slices.Contains([]string{"up", "down", "left", "right", "top", "bottom"}, in.Direction):
		return errorf(InvalidArgs, false, "use up, down, left, right, top or bottom", "direction %q is not a direction", in.Direction)
	case in.Pixels != 0 && in.Direction == "":
		return errorf(InvalidArgs, false, "pixels goes with direction", "pixels needs a direction")
	case in.Pixels != 0 && (in.Direction == "top" || in.Direction == "bottom"):
		return errorf(InvalidArgs, false, "drop pixels: top and bottom go to the end", "pixels does not go with %s", in.Direction)
	case in.Pixels < 0 || math.IsInf(in.Pixels, 0):
		return errorf(InvalidArgs, false, "give a positive distance and a direction", "pixels %v is not positive", in.Pixels)
	}
	for _, v := range []*float64{in.X, in.Y} {
		if v != nil && (*v < 0 || math.IsInf(*v, 0)) {
			return errorf(InvalidArgs, false, "positions start at 0", "position %v is out of range", *v)
		}
	}
	return oneElement(in.UID, in.Selector)
}

// pageEnd is a vertical position past the end of any page: scrolling
// there stops at the bottom.
const pageEnd = 1 << 30

func scroll(ctx context.Context, env *Env, d *door, in scrollArgs) (*Result, error) {
	ds, err := role[driver.DragScroller](env, d.tab, "scroll")
	if err != nil {
		return nil, err
	}
	switch in.Direction {
	case "top", "bottom":
		y := 0.0
		if in.Direction == "bottom" {
			y = pageEnd
		}
		in.Direction, in.Y = "", &y
	}
	res, err := ds.Scroll(ctx, driver.ScrollOptions{
		Direction: in.Direction, Pixels: in.Pixels, Ref: in.UID, Selector: in.Selector, X: in.X, Y: in.Y,
	})
	if err != nil {
		return nil, err
	}
	return &Result{Data: &scrollData{ScrollResult: res}}, nil
}
