package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdpinput "github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// fieldInfo is what fieldInfoJS reports about an element.
type fieldInfo struct {
	Kind     string `json:"kind"` // text, editable, select, checkbox, radio, file or none
	Tag      string `json:"tag"`
	Type     string `json:"type"`
	Disabled bool   `json:"disabled"`
	ReadOnly bool   `json:"readonly"`
	Checked  bool   `json:"checked"`
	Multiple bool   `json:"multiple"`
}

// fieldInfoJS classifies an element for input.
var fieldInfoJS = loadScript("field_info")

// field reads what kind of field e is.
func (e *element) field(ctx context.Context) (fieldInfo, error) {
	var f fieldInfo
	err := e.callJS(ctx, &f, fieldInfoJS)
	return f, err
}

// refuse returns a NotTypeableError for e.
func (e *element) refuse(reason string, why driver.Refusal) error {
	return &driver.NotTypeableError{Ref: e.Ref, Reason: reason, Why: why}
}

// usable refuses a disabled or read-only field.
func (e *element) usable(f fieldInfo) error {
	switch {
	case f.Disabled:
		return e.refuse("is disabled", driver.RefusedDisabled)
	case f.ReadOnly:
		return e.refuse("is read-only", driver.RefusedReadOnly)
	}
	return nil
}

// describe names the element's kind for a message: "a <div>",
// `an <input type="submit">`.
func (f fieldInfo) describe() string {
	if f.Tag == "" {
		return "a text node"
	}
	s := "<" + f.Tag
	if f.Tag == "input" {
		s += fmt.Sprintf(" type=%q", f.Type)
	}
	s += ">"
	if strings.ContainsRune("aeio", rune(f.Tag[0])) {
		return "an " + s
	}
	return "a " + s
}

// Fill clears a field — named by ref, or when ref is empty by CSS selector
// (see [Tab.Element]) — and sets it to value, the way a person's edit
// would be seen by the page:
//
//   - text inputs and textareas: focus, then the native value setter and
//     bubbling input and change events, so that controlled inputs of React
//     or Vue, whose own setter would swallow the change, register it;
//   - contenteditable elements: focus, select the contents, then
//     Input.insertText;
//   - <select>: the option whose value, else visible label (exactly, then
//     ignoring case and surrounding space), is value;
//   - checkboxes and radios: value "true" or "false" (also on/off,
//     checked/unchecked, yes/no), applied with a click when the state
//     differs: a real mouse click where the element or one of its labels
//     can be hit in the top document, else a DOM click.
//
// value travels as a CDP call argument, never as script source, and is
// never logged. A disabled, read-only or non-field element is a
// *NotTypeableError; an unknown option an *OptionError; a radio cannot be
// unchecked, and a page that undoes a click is a *NotTypeableError too.
//
// Like a click, a fill waits for a navigation it starts (a change handler
// that submits) and ends at once when it opens a JavaScript dialog, with a
// warning saying so. The context bounds the whole call.
func (t *Tab) Fill(ctx context.Context, ref, selector, value string) (*driver.FillResult, error) {
	res, err := t.fillAtOnce(ctx, ref, selector, value)
	if errors.Is(err, errNotReady) {
		err = t.withElement(ctx, ref, selector, func(ctx context.Context, el *element) (err error) {
			res, err = el.fill(ctx, value)
			return err
		})
	}
	if err == nil && res == nil {
		res = &driver.FillResult{Warning: "a JavaScript dialog opened before the fill finished"}
	}
	return res, err
}

// releaseWait bounds freeing an element's handle after an action.
const releaseWait = 2 * time.Second

// withElement resolves an element and runs fn on it as an action of the
// tab (see act): navigations it starts are waited for, a dialog ends it.
//
// It first waits for the element to be rendered and enabled (see
// Tab.actionable).
func (t *Tab) withElement(ctx context.Context, ref, selector string, fn func(ctx context.Context, el *element) error) error {
	return t.withElementCheck(ctx, ref, selector, visibleEnabled(selector), fn)
}

// withElementCheck is withElement waiting for check (nil: for the element
// to be attached).
func (t *Tab) withElementCheck(ctx context.Context, ref, selector string, check func(ctx context.Context, el *element) error, fn func(ctx context.Context, el *element) error) error {
	return t.withElementWait(ctx, ref, selector, check, func(ctx context.Context, el *element) (inputWait, error) {
		return waitAfterInput, fn(ctx, el)
	})
}

// withElementWait is withElementCheck for an fn that says what is left to
// wait for after its input (see performWith).
func (t *Tab) withElementWait(ctx context.Context, ref, selector string, check func(ctx context.Context, el *element) error, fn func(ctx context.Context, el *element) (inputWait, error)) error {
	ps, err := t.session(ctx)
	if err != nil {
		return err
	}
	el, err := t.actionable(ctx, ref, selector, check)
	if err != nil {
		return err
	}
	defer t.releaseLater(ctx, el)
	return t.actWith(ctx, ps, el.Session, func(ctx context.Context) (inputWait, error) { return fn(ctx, el) })
}

// errNotReady says that an element was not actionable at the first look:
// the caller waits for it (see Tab.actionable) and starts again.
var errNotReady = errors.New("browser: the element is not actionable yet")

// fillTextJS is the fast path of a fill (see fillAtOnce).
var fillTextJS = loadScript("fill_text", "actionable_state", "field_info", "set_value", "after_input")

// fillAtOnce is Fill when the element is actionable at the first look:
// the check that withElement would make (the node still in its document,
// rendered and enabled), the field's kind and, for a text field, the
// value set and the wait for what it set off (see afterInputJS), are one
// round trip. An element that is not there or not actionable yet is
// errNotReady, for Fill to wait for it.
func (t *Tab) fillAtOnce(ctx context.Context, ref, selector, value string) (*driver.FillResult, error) {
	ps, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	el, err := t.lookupElement(ctx, ref, selector, false)
	if err != nil {
		if notYet(err) {
			return nil, errNotReady
		}
		return nil, err
	}
	defer t.releaseLater(ctx, el)
	var res *driver.FillResult
	err = t.actWith(ctx, ps, el.Session, func(ctx context.Context) (inputWait, error) {
		var r struct {
			Stale, Ready, Set, Same, Ran bool
			Field                        *fieldInfo
		}
		if err := el.callJS(ctx, &r, fillTextJS, value, frameWait.Milliseconds()); err != nil {
			return waitAfterInput, err
		}
		switch {
		case r.Stale:
			return waitAfterInput, el.gone()
		case !r.Ready || r.Field == nil:
			return waitAfterInput, errNotReady
		case r.Set:
			res = &driver.FillResult{Kind: r.Field.Kind}
			if !r.Same {
				res.Warning = valueRefused
			}
			if r.Ran {
				return waitDone, nil
			}
			return waitAfterInput, nil
		}
		var err error
		res, err = el.fillAs(ctx, *r.Field, value)
		return waitAfterInput, err
	})
	return res, err
}

// releaseLater frees an element's handle after an action without making
// the action wait for the answer; it is bounded by releaseWait, or by a
// dialog that opens (the renderer answers nothing while one waits: the
// handle is then left to die with its document).
func (t *Tab) releaseLater(ctx context.Context, el *element) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
	go func() {
		defer cancel()
		rctx, stop := t.UntilDialog(ctx)
		defer stop()
		el.Release(rctx)
	}()
}

// valueRefused is the warning of a text field that holds another value
// than the one set.
const valueRefused = "the field holds a different value than given: its type refused it (a number field given letters, a line break in a one-line input) or the page changed it"

// fill is Fill on a resolved element.
func (e *element) fill(ctx context.Context, value string) (*driver.FillResult, error) {
	f, err := e.field(ctx)
	if err != nil {
		return nil, err
	}
	return e.fillAs(ctx, f, value)
}

// fillAs is fill on an element of field kind f.
func (e *element) fillAs(ctx context.Context, f fieldInfo, value string) (*driver.FillResult, error) {
	switch f.Kind {
	case "checkbox", "radio":
		on, ok := parseChecked(value)
		if !ok {
			return nil, fmt.Errorf("%w: a %s takes \"true\" or \"false\"", driver.ErrInvalidArgument, f.Kind)
		}
		return e.setChecked(ctx, f, on)
	case "file":
		return nil, e.refuse("is a file input", driver.RefusedFileInput)
	case "none":
		return nil, e.refuse("is "+f.describe()+", not a form field", driver.RefusedNotField)
	}
	if err := e.usable(f); err != nil {
		return nil, err
	}
	switch f.Kind {
	case "select":
		sel, err := e.selectOptions(ctx, []string{value})
		if err != nil {
			return nil, err
		}
		return &driver.FillResult{Kind: f.Kind, Selected: sel}, nil
	case "editable":
		return e.fillEditable(ctx, value)
	}
	var same bool
	if err := e.callJS(ctx, &same, setValueJS, value); err != nil {
		return nil, err
	}
	res := &driver.FillResult{Kind: f.Kind}
	if !same {
		res.Warning = valueRefused
	}
	return res, nil
}

// setValueJS sets an input's or textarea's value with the prototype's
// setter (bypassing any setter a framework put on the element) and tells
// the page with the events an edit fires. It returns whether the value
// stuck.
var setValueJS = loadScript("set_value")

// selectContentsJS focuses a contenteditable element and selects all it
// holds, so that inserted text replaces it.
var selectContentsJS = loadScript("select_contents")

func (e *element) fillEditable(ctx context.Context, value string) (*driver.FillResult, error) {
	if err := e.callJS(ctx, nil, selectContentsJS); err != nil {
		return nil, err
	}
	if value != "" {
		if _, err := cdpapi.Call(ctx, e.Session, cdpinput.InsertText, cdpinput.InsertTextParams{Text: value}); err != nil {
			return nil, fmt.Errorf("browser: inserting text: %w", err)
		}
		return &driver.FillResult{Kind: "editable"}, nil
	}
	// Inserting "" leaves the selection; deleting it is what clears.
	for _, ev := range kb.Encode([]rune(kb.Backspace)[0]) {
		if _, err := cdpapi.Call(ctx, e.Session, cdpinput.DispatchKeyEvent, *ev); err != nil {
			return nil, fmt.Errorf("browser: clearing: %w", err)
		}
	}
	return &driver.FillResult{Kind: "editable"}, nil
}

// parseChecked reads a checkbox state.
func parseChecked(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "checked", "yes", "1":
		return true, true
	case "false", "off", "unchecked", "no", "0":
		return false, true
	}
	return false, false
}

func (e *element) setChecked(ctx context.Context, f fieldInfo, on bool) (*driver.FillResult, error) {
	if err := e.usable(f); err != nil {
		return nil, err
	}
	res := &driver.FillResult{Kind: f.Kind, Checked: &on}
	if f.Checked == on {
		return res, nil
	}
	if f.Kind == "radio" && !on {
		return nil, e.refuse("is a checked radio button, which a click cannot uncheck", driver.RefusedRadioUncheck)
	}
	if err := e.click(ctx); err != nil {
		return nil, err
	}
	f, err := e.field(ctx)
	if err != nil {
		return res, nil // the click navigated away: the changes will say so
	}
	if f.Checked != on {
		return nil, e.refuse("stayed "+map[bool]string{true: "checked", false: "unchecked"}[f.Checked]+" after a click: the page undid it", driver.RefusedUndone)
	}
	return res, nil
}

// clickPointJS scrolls the element into view and returns a viewport point
// where a click lands on it or on one of its labels, or null when there is
// none or the element is not in the top document (whose viewport is the
// one mouse events address).
var clickPointJS = loadScript("click_point")

// click clicks the element with the mouse where it can be hit, else in the
// DOM.
func (e *element) click(ctx context.Context) error {
	var p *struct{ X, Y float64 }
	if err := e.callJS(ctx, &p, clickPointJS); err != nil {
		return err
	}
	if p == nil {
		return e.callJS(ctx, nil, clickJS)
	}
	for _, typ := range []cdpinput.DispatchMouseEventType{
		cdpinput.DispatchMouseEventTypeMouseMoved, cdpinput.DispatchMouseEventTypeMousePressed, cdpinput.DispatchMouseEventTypeMouseReleased,
	} {
		ev := cdpinput.DispatchMouseEventParams{Type: typ, X: p.X, Y: p.Y}
		if typ != cdpinput.DispatchMouseEventTypeMouseMoved {
			ev.Button, ev.ClickCount = cdpinput.MouseButtonLeft, 1
		}
		if _, err := cdpapi.Call(ctx, e.Session, cdpinput.DispatchMouseEvent, ev); err != nil {
			return fmt.Errorf("browser: clicking: %w", err)
		}
	}
	return nil
}

// file for a single-file input is ErrInvalidArgument.
func (t *Tab) SetFiles(ctx context.Context, ref, selector string, paths []string) error {
	return t.withElementCheck(ctx, ref, selector, nil, func(ctx context.Context, el *element) error {
		f, err := el.field(ctx)
		if err != nil {
			return err
		}
		if f.Kind != "file" {
			return el.refuse("is "+f.describe()+", not a file input", driver.RefusedNotFileInput)
		}
		if err := el.usable(f); err != nil {
			return err
		}
		if !f.Multiple && len(paths) > 1 {
			return fmt.Errorf("%w: the file input takes one file, not %d", driver.ErrInvalidArgument, len(paths))
		}
		if _, err := cdpapi.Call(ctx, el.Session, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, BackendNodeID: el.Backend}); err != nil {
			return fmt.Errorf("browser: setting files: %w", err)
		}
		return nil
	})
}

// focus focuses the element. One that cannot take focus is a
// *NotTypeableError.
func (e *element) focus(ctx context.Context) error {
	var ok bool
	if err := e.callJS(ctx, &ok, focusJS); err != nil {
		return err
	}
	if !ok {
		return e.refuse("cannot take keyboard focus", driver.RefusedUnfocusable)
	}
	return nil
}

// focusJS focuses an element and reports whether focus landed on it or
// inside it (a shadow host). A text field or contenteditable element that
// did not have focus gets its caret at the end, as after a person clicks
// past its text; one that had focus keeps its caret.
var focusJS = loadScript("focus")

// clickJS clicks an element through the DOM.
var clickJS = loadScript("click")

// callJS calls fn on the element as a user action (see callJS), and
// decodes its result into out, which may be nil. A thrown exception is an
// error naming only its class and message.
func (e *element) callJS(ctx context.Context, out any, fn pageScript, args ...any) error {
	if err := callJS(ctx, e.Session, jsCall{this: e.Object, gesture: true}, fn, out, args...); err != nil {
		return fmt.Errorf("browser: acting on the element: %w", err)
	}
	return nil
}
