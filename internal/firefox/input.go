package firefox

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/input"
)

var aimJS = ownScript("aim")

// aim is where js/aim.js says a pointer would land on an element.
type aim struct {
	X, Y int
	// Offset is the point's offset from the element's in-view centre,
	// when the point is on the element's own box (not its label's).
	Offset    *struct{ X, Y int }
	Gone      bool
	Disabled  bool
	Hidden    bool
	Offscreen bool
	Covered   string
}

// webdriverKeys maps DOM key names to WebDriver's key code points.
var webdriverKeys = map[string]string{
	"Cancel": "\uE001", "Help": "\uE002", "Backspace": "\uE003", "Tab": "\uE004", "Clear": "\uE005",
	"Enter": "\uE007", "Shift": "\uE008", "Control": "\uE009", "Alt": "\uE00A", "Pause": "\uE00B",
	"Escape": "\uE00C", " ": " ", "PageUp": "\uE00E", "PageDown": "\uE00F", "End": "\uE010", "Home": "\uE011",
	"ArrowLeft": "\uE012", "ArrowUp": "\uE013", "ArrowRight": "\uE014", "ArrowDown": "\uE015",
	"Insert": "\uE016", "Delete": "\uE017", "Meta": "\uE03D",
	"F1": "\uE031", "F2": "\uE032", "F3": "\uE033", "F4": "\uE034", "F5": "\uE035", "F6": "\uE036",
	"F7": "\uE037", "F8": "\uE038", "F9": "\uE039", "F10": "\uE03A", "F11": "\uE03B", "F12": "\uE03C",
}

func webdriverKey(name string) (string, error) {
	if v, ok := webdriverKeys[name]; ok {
		return v, nil
	}
	if utf8.RuneCountInString(name) == 1 {
		return name, nil
	}
	return "", &input.KeyError{Key: name}
}

// modifierBits maps ClickOptions modifier bits to WebDriver keys.
var modifierBits = []struct {
	bit int64
	key string
}{{input.ModAlt, "\uE00A"}, {input.ModCtrl, "\uE009"}, {input.ModMeta, "\uE03D"}, {input.ModShift, "\uE008"}}

// perform runs input.performActions, returning early (with dialog set)
// when the actions open a user prompt, which blocks them until answered;
// otherwise it waits for what the input set off (settle.go).
func (t *Tab) perform(ctx context.Context, context string, actions []any) (dialog bool, err error) {
	if context == "" {
		context = t.id
	}
	opened := t.opened()
	before := t.mark()
	done := make(chan error, 1)
	go func() {
		done <- t.b.conn.Call(ctx, "input.performActions", map[string]any{"context": context, "actions": actions}, nil)
	}()
	for {
		select {
		case err := <-done:
			// Key and pointer state must not leak into the next call,
			// even from actions Firefox refused part way.
			t.b.conn.Call(ctx, "input.releaseActions", map[string]any{"context": context}, nil)
			if err != nil {
				return false, t.wrap(err)
			}
			t.settleAction(ctx, before)
			return false, nil
		case <-opened:
			if t.promptWaits() {
				return true, nil
			}
			// The policy answers this one by itself: the actions go on.
			opened = nil
		}
	}
}

// Click implements driver.TabDriver: a hit-tested mouse click through
// input.performActions at the element's centre.
func (t *Tab) Click(ctx context.Context, o driver.ClickOptions) (*driver.ClickResult, error) {
	button, err := buttonNumber(o.Button)
	if err != nil {
		return nil, err
	}
	if o.Force {
		return nil, unsupported("force")
	}
	a, err := t.aimElement(ctx, o.Ref, o.Selector)
	if err != nil {
		return nil, err
	}
	driver.Step(ctx, "clicking")
	var keysDown, keysUp []any
	for _, m := range modifierBits {
		if o.Modifiers&m.bit != 0 {
			keysDown = append(keysDown, map[string]any{"type": "keyDown", "value": m.key})
			keysUp = append(keysUp, map[string]any{"type": "keyUp", "value": m.key})
		}
	}
	pointer := []any{a.move}
	clicks := 1
	if o.Double {
		clicks = 2
	}
	for range clicks {
		pointer = append(pointer, map[string]any{"type": "pointerDown", "button": button},
			map[string]any{"type": "pointerUp", "button": button})
	}
	actions := []any{}
	if len(keysDown) > 0 {
		// Actions run tick by tick across sources: keys go down in the
		// first ticks, while the pointer pauses, stay down (pausing) while
		// it clicks, then go up.
		var pauses []any
		for range keysDown {
			pauses = append(pauses, map[string]any{"type": "pause"})
		}
		keys := keysDown
		for range pointer {
			keys = append(keys, map[string]any{"type": "pause"})
		}
		actions = append(actions, map[string]any{"type": "key", "id": "cdpkit-keys", "actions": append(keys, keysUp...)})
		pointer = append(pauses, pointer...)
	}
	actions = append(actions, map[string]any{"type": "pointer", "id": "cdpkit-mouse",
		"parameters": map[string]any{"pointerType": "mouse"}, "actions": pointer})
	dialog, err := t.perform(ctx, a.frame, actions)
	if err != nil {
		return nil, t.pointerErr(ctx, o.Ref, o.Selector, err)
	}
	tx, ty := t.inTab(ctx, a.frame, a.x, a.y)
	res := &driver.ClickResult{X: tx, Y: ty, Dialog: dialog}
	if !dialog && button == 0 {
		// A submit the browser refused shows only its bubble, and a
		// download link starts no navigation: ask the element, as
		// Chromium's Click does. A navigation has taken it away, and the
		// call fails harmlessly.
		actx, cancel := context.WithTimeout(ctx, time.Second)
		var after *struct {
			NotSubmitted *driver.Invalid
			Download     bool
		}
		if t.callJSON(actx, afterClickJS, a.el, &after) == nil && after != nil {
			res.NotSubmitted = after.NotSubmitted
			if after.Download {
				t.downloadLink.Store(true)
			}
		}
		cancel()
	}
	return res, nil
}

// afterClickJS is Chromium's js/after_click.js.
var afterClickJS = sharedScript("after_click")

// aimed is where a pointer goes to act on an element.
type aimed struct {
	x, y  int    // in frame's viewport, when aimed
	frame string // the browsing context holding the element
	el    *sharedRef
	// move is the pointerMove action that reaches the point: relative to
	// the element when the point is on its own box, so that Firefox
	// places it where the element is when the pointer moves, not where it
	// was when aimed (a layout shift in between, such as a list filtering
	// as it is clicked, would make the click land on something else).
	move map[string]any
}

// aimAt scrolls the element into view and returns where to click it: a
// point in the viewport of the browsing context holding it (the tab's, or
// a frame's), which it returns too. Pointer actions are performed in that
// context: Firefox routes those of the tab into out-of-process frames.
func (t *Tab) aimAt(ctx context.Context, ref, selector string) (x, y int, frame string, err error) {
	a, err := t.aimElement(ctx, ref, selector)
	if err != nil {
		return 0, 0, "", err
	}
	return a.x, a.y, a.frame, nil
}

// aimElement is aimAt that also returns the element and the pointer move
// that reaches it. Like Chromium's, it waits (see aimWait) in one script
// call for an element still moving to come to rest and for one covered
// to come clear, then aims where the element is or refuses.
func (t *Tab) aimElement(ctx context.Context, ref, selector string) (*aimed, error) {
	el, err := t.element(ctx, ref, selector)
	if err != nil {
		return nil, err
	}
	driver.Step(ctx, "finding where to click")
	var a aim
	if err := t.callJSONSandboxed(ctx, aimJS, el, &a, aimWait(ctx).Milliseconds()); err != nil {
		return nil, elementErr(ref, selector, t.wrap(err))
	}
	fail := func(err error) error { return &driver.ElementError{Ref: ref, Selector: selector, Err: err} }
	switch {
	case a.Gone:
		return nil, fail(driver.ErrRefStale)
	case a.Disabled:
		return nil, fail(driver.ErrElementDisabled)
	case a.Hidden:
		return nil, fail(driver.ErrElementNotVisible)
	case a.Offscreen:
		return nil, fail(driver.ErrElementOffscreen)
	case a.Covered != "":
		return nil, fail(&driver.CoveredError{By: a.Covered})
	}
	move := map[string]any{"type": "pointerMove", "x": a.X, "y": a.Y}
	if a.Offset != nil {
		move = map[string]any{"type": "pointerMove", "x": a.Offset.X, "y": a.Offset.Y,
			"origin": map[string]any{"type": "element", "element": el}}
	}
	return &aimed{x: a.X, y: a.Y, frame: el.Context, el: el, move: move}, nil
}

// stableWait bounds, in page time, how long one aim waits for an element
// to stop moving and come clear, as Chromium's stableWait does. It is
// short: a menu or suggestion that closes by itself must still be there
// when the click lands.
const stableWait = 500 * time.Millisecond

// aimWait returns how long an aim may wait: stableWait, but no more than
// a quarter of what is left of ctx, so that the click itself and its
// report keep their time.
func aimWait(ctx context.Context) time.Duration {
	w := stableWait
	if dl, ok := ctx.Deadline(); ok {
		w = min(w, time.Until(dl)/4)
	}
	return max(w, 0)
}

// pointerErr is an error of pointer actions aimed at an element. When
// Firefox refused the move because the element was no longer where a
// pointer reaches (detached, hidden, out of the viewport) it aims again
// to say why: REF_STALE for an element rendered anew, as frameworks do,
// rather than a click on whatever took its place.
func (t *Tab) pointerErr(ctx context.Context, ref, selector string, err error) error {
	var be *bidi.CommandError
	if !errors.As(err, &be) || be.Code != "move target out of bounds" {
		return elementErr(ref, selector, err)
	}
	if _, aerr := t.aimElement(ctx, ref, selector); aerr != nil {
		return aerr
	}
	return &driver.ElementError{Ref: ref, Selector: selector, Err: driver.ErrElementOffscreen}
}

// inTab turns a point in frame's viewport into the tab's, for results;
// where the frame cannot be located, the point stays as it is.
func (t *Tab) inTab(ctx context.Context, frame string, x, y int) (float64, float64) {
	if frame == "" || frame == t.id {
		return float64(x), float64(y)
	}
	dx, dy, err := t.frameOffset(ctx, frame)
	if err != nil {
		return float64(x), float64(y)
	}
	return float64(x) + dx, float64(y) + dy
}

// Hover implements driver.TabDriver: the pointer moved to the element.
func (t *Tab) Hover(ctx context.Context, ref, selector string) (*driver.HoverResult, error) {
	a, err := t.aimElement(ctx, ref, selector)
	if err != nil {
		return nil, err
	}
	if _, err := t.perform(ctx, a.frame, []any{map[string]any{"type": "pointer", "id": "cdpkit-mouse",
		"parameters": map[string]any{"pointerType": "mouse"},
		"actions":    []any{a.move}}}); err != nil {
		return nil, t.pointerErr(ctx, ref, selector, err)
	}
	tx, ty := t.inTab(ctx, a.frame, a.x, a.y)
	return &driver.HoverResult{X: tx, Y: ty}, nil
}

// fieldInfo is what js/field_info.js (shared with Chromium) reports.
type fieldInfo struct {
	Kind     string `json:"kind"`
	Disabled bool   `json:"disabled"`
	Readonly bool   `json:"readonly"`
	Checked  bool   `json:"checked"`
}

// Fill implements driver.TabDriver for text fields (the value is set as
// a whole; input and change events fire), selects, checkboxes and radios,
// as on Chromium. Content-editables and file inputs are refused as
// unsupported here.
func (t *Tab) Fill(ctx context.Context, ref, selector, value string) (*driver.FillResult, error) {
	el, err := t.element(ctx, ref, selector)
	if err != nil {
		return nil, err
	}
	var f fieldInfo
	if err := t.callJSON(ctx, sharedScript("field_info"), el, &f); err != nil {
		return nil, elementErr(ref, selector, t.wrap(err))
	}
	fail := func(err error) error { return &driver.ElementError{Ref: ref, Selector: selector, Err: err} }
	switch {
	case f.Kind == "select" || f.Kind == "checkbox" || f.Kind == "radio":
		return t.fillChoice(ctx, el, ref, selector, f, value)
	case f.Kind != "text":
		if f.Kind == "none" {
			return nil, fail(driver.ErrNotTypeable)
		}
		return nil, unsupported("fill of a " + f.Kind + " field")
	case f.Disabled:
		return nil, fail(driver.ErrElementDisabled)
	case f.Readonly:
		return nil, fail(fmt.Errorf("%w: it is read-only", driver.ErrNotTypeable))
	}
	driver.Step(ctx, "filling")
	var same bool
	if err := t.callJSON(ctx, sharedScript("set_value"), el, &same, value); err != nil {
		return nil, elementErr(ref, selector, t.wrap(err))
	}
	res := &driver.FillResult{Kind: "text"}
	if !same {
		res.Warning = "the field holds something other than the value given (it may refuse some characters)"
	}
	return res, nil
}

// TypeText implements driver.TabDriver: the element is focused, then the
// text typed key by key.
func (t *Tab) TypeText(ctx context.Context, ref, selector, text string) error {
	frame, err := t.focus(ctx, ref, selector)
	if err != nil {
		return err
	}
	var keys []any
	for _, r := range text {
		k := string(r)
		if r == '\n' {
			k = "\uE007"
		}
		keys = append(keys, map[string]any{"type": "keyDown", "value": k}, map[string]any{"type": "keyUp", "value": k})
	}
	if len(keys) == 0 {
		return nil
	}
	_, err = t.perform(ctx, frame, []any{map[string]any{"type": "key", "id": "cdpkit-keys", "actions": keys}})
	return err
}

// PressKey implements driver.TabDriver: a key, with modifiers held, on
// the focused element (the element named, focused first).
func (t *Tab) PressKey(ctx context.Context, ref, selector, key string) error {
	c, err := input.ParseCombo(key)
	if err != nil {
		return err
	}
	mods, name := c.KeyNames()
	k, err := webdriverKey(name)
	if err != nil {
		return err
	}
	var down, up []any
	for _, m := range mods {
		v, err := webdriverKey(m)
		if err != nil {
			return err
		}
		down = append(down, map[string]any{"type": "keyDown", "value": v})
		up = append([]any{map[string]any{"type": "keyUp", "value": v}}, up...)
	}
	frame, err := t.focus(ctx, ref, selector)
	if err != nil {
		return err
	}
	actions := append(append(down, map[string]any{"type": "keyDown", "value": k}, map[string]any{"type": "keyUp", "value": k}), up...)
	_, err = t.perform(ctx, frame, []any{map[string]any{"type": "key", "id": "cdpkit-keys", "actions": actions}})
	return err
}

// focus focuses the element named, if any, and returns the browsing
// context holding it (a frame's, or "" for the tab's), where keys go.
func (t *Tab) focus(ctx context.Context, ref, selector string) (string, error) {
	if ref == "" && selector == "" {
		return "", t.CheckDialog()
	}
	el, err := t.element(ctx, ref, selector)
	if err != nil {
		return "", err
	}
	var ok bool
	if err := t.callJSON(ctx, sharedScript("focus"), el, &ok); err != nil {
		return "", elementErr(ref, selector, t.wrap(err))
	}
	if !ok {
		return "", &driver.ElementError{Ref: ref, Selector: selector, Err: fmt.Errorf("%w: it cannot take the focus", driver.ErrNotTypeable)}
	}
	return el.Context, nil
}
