package driver

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Element states a wait can ask for.
const (
	StateVisible  = "visible"  // in the document, with a non-empty box, not visibility:hidden
	StateHidden   = "hidden"   // not visible, or not in the document
	StateAttached = "attached" // in the document
	StateDetached = "detached" // not in the document
)

// WaitCondition is what [TabDriver.WaitFor] waits for: the first of its parts
// that holds ends the wait.
type WaitCondition struct {
	// Texts: any of them appears in the page's visible text
	// (document.body.innerText), compared case-insensitively with runs of
	// white space as one space.
	Texts []string
	// TextGone disappears from the visible text.
	TextGone string
	// Selector, a CSS selector matched in the main document, reaches State
	// (StateVisible when empty).
	Selector string
	State    string
	// URL is a substring of the page's URL, or a JavaScript regular
	// expression between slashes, such as "/items\/\d+/" or "/done/i"
	// (a path such as "/items/42" is a substring: 42 are not flags).
	URL string
}

// WaitResult says what ended a wait.
type WaitResult struct {
	Matched   WaitMatch `json:"matched"`
	ElapsedMs int64     `json:"elapsedMs"`
}

// WaitMatch is the part of a WaitCondition that held; exactly one field is
// set, but State goes with Selector. URL is the page's URL.
type WaitMatch struct {
	Text     string `json:"text,omitempty"`
	TextGone string `json:"textGone,omitempty"`
	Selector string `json:"selector,omitempty"`
	State    string `json:"state,omitempty"`
	URL      string `json:"url,omitempty"`
}

// ErrWaitTimeout means a wait's condition did not hold in time.
var ErrWaitTimeout = errors.New("browser: wait timed out")

// WaitTimeoutError says what was still missing when a wait gave up.
type WaitTimeoutError struct {
	After   time.Duration
	Missing []string // one line per part of the condition
}

func (e *WaitTimeoutError) Error() string {
	return fmt.Sprintf("browser: after %d ms: %s", e.After.Milliseconds(), strings.Join(e.Missing, "; "))
}

func (e *WaitTimeoutError) Unwrap() error { return ErrWaitTimeout }

// Spec is the condition as the in-page function takes it.
func (c WaitCondition) Spec() (map[string]any, error) {
	var texts []string
	for _, s := range c.Texts {
		if strings.TrimSpace(s) != "" {
			texts = append(texts, s)
		}
	}
	if len(texts) == 0 && strings.TrimSpace(c.TextGone) == "" && c.Selector == "" && c.URL == "" {
		return nil, fmt.Errorf("%w: nothing to wait for", ErrInvalidArgument)
	}
	state := c.State
	switch state {
	case "":
		state = StateVisible
	case StateVisible, StateHidden, StateAttached, StateDetached:
	default:
		return nil, fmt.Errorf("%w: state %q: want visible, hidden, attached or detached", ErrInvalidArgument, c.State)
	}
	spec := map[string]any{}
	if len(texts) > 0 {
		spec["texts"] = texts
	}
	if strings.TrimSpace(c.TextGone) != "" {
		spec["textGone"] = c.TextGone
	}
	if c.Selector != "" {
		spec["selector"], spec["state"] = c.Selector, state
	}
	if c.URL != "" {
		spec["url"] = c.URL
	}
	return spec, nil
}

// Missing describes each part of c as not yet holding.
func (c WaitCondition) Missing() []string {
	var m []string
	if len(c.Texts) > 0 {
		m = append(m, fmt.Sprintf("none of the texts %q appeared", c.Texts))
	}
	if c.TextGone != "" {
		m = append(m, fmt.Sprintf("text %q is still there", c.TextGone))
	}
	if c.Selector != "" {
		m = append(m, fmt.Sprintf("%q is not %s", c.Selector, cmp.Or(c.State, StateVisible)))
	}
	if c.URL != "" {
		m = append(m, fmt.Sprintf("the URL does not match %q", c.URL))
	}
	return m
}
