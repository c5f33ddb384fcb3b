package driver

import (
	"errors"
	"fmt"
)

// Form errors.
var (
	// ErrNotTypeable means an element cannot take the input asked for: it
	// is disabled or read-only, or not a field of that kind.
	ErrNotTypeable = errors.New("browser: element cannot take this input")
	// ErrOptionNotFound means a <select> has no option with the value or
	// label asked for.
	ErrOptionNotFound = errors.New("browser: no such option")
)

// NotTypeableError says why an element refused input. Why classifies it,
// so that front-ends can say what to do instead.
type NotTypeableError struct {
	Ref    string // the element's ref, if it was named by one
	Reason string // such as "is disabled" or "is a <div>, not a form field"
	Why    Refusal
}

// Refusal classifies why an element refused input.
type Refusal string

// The refusals of NotTypeableError.
const (
	RefusedDisabled     Refusal = "disabled"       // a disabled field
	RefusedReadOnly     Refusal = "read-only"      // a read-only field
	RefusedFileInput    Refusal = "file-input"     // a file input, given text
	RefusedNotField     Refusal = "not-field"      // not a form field at all
	RefusedRadioUncheck Refusal = "radio-uncheck"  // unchecking a checked radio button
	RefusedUndone       Refusal = "undone"         // the page undid the change
	RefusedNotFileInput Refusal = "not-file-input" // files for an element that is no file input
	RefusedUnfocusable  Refusal = "unfocusable"    // it cannot take keyboard focus
	RefusedNotSelect    Refusal = "not-select"     // options for an element that is no select
)

func (e *NotTypeableError) Error() string {
	return fmt.Sprintf("browser: %s %s", e.What(), e.Reason)
}

func (e *NotTypeableError) Unwrap() error { return ErrNotTypeable }

// What names the element for a message: its ref, or "the element".
func (e *NotTypeableError) What() string {
	if e.Ref != "" {
		return e.Ref
	}
	return "the element"
}

// FillResult says what Fill did.
type FillResult struct {
	Kind     string   `json:"kind"`               // text, editable, select, checkbox or radio
	Selected []string `json:"selected,omitempty"` // a select's selected option values
	Checked  *bool    `json:"checked,omitempty"`  // a checkbox's or radio's state
	// Warning says the field holds something other than what was given,
	// such as a number input refusing letters, or that a dialog cut the
	// fill short.
	Warning string `json:"warning,omitempty"`
}
