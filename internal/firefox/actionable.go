package firefox

import (
	"context"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

const (
	// stableWait bounds how long one look waits for a moving element to
	// come to rest before it aims where the element is, as Chromium's.
	stableWait = 500 * time.Millisecond
	// changeWait bounds one wait for the page to change between two
	// looks at an element that is not actionable yet.
	changeWait = 250 * time.Millisecond
)

// actionWait returns the wait set on ctx, else DefaultActionWait.
func actionWait(ctx context.Context) time.Duration {
	if d, ok := driver.ActionWait(ctx); ok {
		return d
	}
	return driver.DefaultActionWait
}

// actionable runs look until it succeeds, looking again after each change
// of the page (see awaitChange) while it fails with a reason that may pass
// (driver.NotYet), until the action wait (see driver.WithActionWait) is
// over; then the last reason comes wrapped in a *driver.WaitError. A wait
// of zero is one look. Part of ctx's time is left for the action itself.
// It has the rules of Chromium's Tab.actionable.
func (t *Tab) actionable(ctx context.Context, look func(ctx context.Context) error) error {
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
		err := look(ctx)
		if err == nil || !driver.NotYet(err) || ctx.Err() != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			if wait == 0 {
				return err
			}
			// The planned wait, not the measured one: messages stay the
			// same from run to run.
			return &driver.WaitError{Waited: deadline.Sub(start).Round(10 * time.Millisecond), Err: err}
		}
		driver.Step(ctx, "waiting for the element to be actionable")
		t.awaitChange(ctx, min(left, changeWait))
	}
}

// awaitChangeJS resolves at the page's next change (see the script).
var awaitChangeJS = sharedScript("await_change")

// awaitChange waits, at most bound, for the top document's next DOM
// mutation, the end of a transition or animation, or a few frames. It
// reports nothing: the caller looks again either way.
func (t *Tab) awaitChange(ctx context.Context, bound time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	t.callJSONSandboxed(ctx, awaitChangeJS, nil, nil, bound.Milliseconds())
}
