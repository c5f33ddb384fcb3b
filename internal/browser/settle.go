package browser

import (
	"context"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// Settle waits, for at most bound, for the next animation frame and then
// one task, so that what the page queued in reaction to an action (its own
// frame callbacks and zero-delay timers, queued before ours) has run and
// rendered; a navigation it started is waited for by the frame callback
// never running in the old document, which the bound covers. One frame
// and a task, not two frames: a frame costs ~17 ms at 60 Hz, and actions
// already waited for one frame after their input (see perform). It does
// nothing while a dialog waits, since no frame renders then, and reports
// no error: settling is best effort. ctx bounds it too.
func (t *Tab) Settle(ctx context.Context, bound time.Duration) {
	if t.CheckDialog() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	s, err := t.Session(ctx)
	if err != nil {
		return
	}
	yes := true
	cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression:   "new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true))))",
		AwaitPromise: &yes,
	})
}
