package browser

import (
	"context"
	"errors"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// changeWait bounds one wait for the page to change between two looks at
// an element that is not actionable yet.
const changeWait = 250 * time.Millisecond

// actionWait returns the wait set on ctx, else DefaultActionWait.
func actionWait(ctx context.Context) time.Duration {
	if d, ok := driver.ActionWait(ctx); ok {
		return d
	}
	return driver.DefaultActionWait
}

// notYet reports whether err may go away by itself as the page goes on:
// the element is not there yet, not rendered, disabled, moving or covered.
func notYet(err error) bool {
	var nt *driver.NotTypeableError
	if errors.As(err, &nt) {
		return nt.Why == driver.RefusedDisabled
	}
	return errors.Is(err, driver.ErrElementNotFound) || errors.Is(err, driver.ErrElementNotVisible) ||
		errors.Is(err, driver.ErrElementDisabled) || errors.Is(err, driver.ErrElementCovered)
}

// actionable resolves ref or selector (see Tab.element) and runs check on
// the element, looking again after each change of the page (see
// awaitChange) while the element is missing or check fails with a
// reason that may pass, until the action wait (see WithActionWait) is
// over; then the last reason comes wrapped in a *WaitError. An element
// that is actionable at the first look costs exactly one look. Part of
// ctx's time is left for the action itself. The caller releases the
// element.
func (t *Tab) actionable(ctx context.Context, ref, selector string, check func(ctx context.Context, el *element) error) (*element, error) {
	wait := actionWait(ctx)
	start := time.Now()
	deadline := start.Add(wait)
	if d, ok := ctx.Deadline(); ok {
		// Leave a quarter of the call's time for acting and reporting.
		if cap := start.Add(time.Until(d) * 3 / 4); cap.Before(deadline) {
			deadline = cap
		}
	}
	for {
		el, err := t.element(ctx, ref, selector)
		if err == nil {
			if check == nil {
				return el, nil
			}
			if err = check(ctx, el); err == nil {
				return el, nil
			}
			el.Release(ctx)
		}
		if !notYet(err) || ctx.Err() != nil {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			if wait == 0 {
				return nil, err
			}
			// The planned wait, not the measured one: messages stay the
			// same from run to run.
			return nil, &driver.WaitError{Waited: deadline.Sub(start).Round(10 * time.Millisecond), Err: err}
		}
		driver.Step(ctx, "waiting for the element to be actionable")
		t.awaitChange(ctx, min(left, changeWait))
	}
}

// awaitChangeJS resolves at the page's next change (see the script).
var awaitChangeJS = loadScript("await_change")

// awaitChange waits, at most bound, for the page's next DOM mutation, the
// end of a transition or animation, or a few frames. It reports nothing:
// the caller looks again either way.
func (t *Tab) awaitChange(ctx context.Context, bound time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	s, err := t.session(ctx)
	if err != nil {
		return
	}
	callJS(ctx, s, jsCall{}, awaitChangeJS, nil, float64(bound.Milliseconds()))
}

// actionableStateJS reports whether an element is rendered and enabled,
// leaving checkboxes, radios and file inputs (often hidden behind a
// label) to the action.
var actionableStateJS = loadScript("actionable_state")

// visibleEnabled is the check of field actions: the element is rendered
// and not disabled.
func visibleEnabled(selector string) func(ctx context.Context, el *element) error {
	return func(ctx context.Context, el *element) error {
		var st struct{ Hidden, Disabled bool }
		if err := callJS(ctx, el.Session, jsCall{this: el.Object}, actionableStateJS, &st); err != nil {
			if cdp.IsProtocolError(err) {
				return &driver.ElementError{Ref: el.Ref, Selector: selector, Err: driver.ErrElementNotVisible}
			}
			return err
		}
		switch {
		case st.Hidden:
			return &driver.ElementError{Ref: el.Ref, Selector: selector, Err: driver.ErrElementNotVisible}
		case st.Disabled:
			return el.refuse("is disabled", driver.RefusedDisabled) // as the field action itself would say
		}
		return nil
	}
}
