package driver

import (
	"errors"
	"fmt"
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

// ClickOptions say what to click and how.
type ClickOptions struct {
	// Ref or Selector names the element (see [TabDriver.Element]).
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
	// for an answer: the page is blocked until [TabDriver.HandleDialog].
	Dialog bool
	// NotSubmitted is set when the click was on a submit button whose
	// form the browser refused to submit: a control is invalid, and the
	// browser showed its validation message.
	NotSubmitted *Invalid
}

// Invalid is a form control that blocked a submit, as the browser
// reports it to the user.
type Invalid struct {
	Field   string // the control's label (or name)
	Message string // the browser's validation message
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

// DragOptions name the element to drag and the one to drop it on, each by
// ref or selector (see [TabDriver.Element]).
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
