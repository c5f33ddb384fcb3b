package driver

import (
	"context"
	"fmt"
	"time"
)

// DefaultActionWait is how long an action waits for its element to become
// actionable when the caller sets no wait (see WithActionWait).
const DefaultActionWait = 5 * time.Second

type actionWaitKey struct{}

// ActionWait returns the wait WithActionWait set on ctx; false when none.
func ActionWait(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(actionWaitKey{}).(time.Duration)
	return d, ok
}

// WithActionWait returns a context under which element actions (click,
// hover, drag, fill, type, press, select, upload) wait at most d for their
// element to be attached, visible, stable, enabled and uncovered; zero
// means not at all (one look, as before waits existed). The context's own
// deadline bounds the wait as well.
func WithActionWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, actionWaitKey{}, max(d, 0))
}

// WaitError says that an element did not become actionable in the time an
// action waited. Err is the last reason (an *ElementError wrapping
// ErrElementNotFound, ErrElementNotVisible, ErrElementDisabled or a
// *CoveredError, or a *NotTypeableError for a disabled field).
type WaitError struct {
	Waited time.Duration
	Err    error
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("browser: waited %v for the element: %v", e.Waited.Round(time.Millisecond), e.Err)
}

func (e *WaitError) Unwrap() error { return e.Err }
