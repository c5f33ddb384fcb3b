package browser

import (
	"context"
	"time"
)

// Settle waits, for at most bound, for what the page queued in reaction
// to an action to run: one task (after the page's own zero-delay timers,
// queued before ours), and only if the document mutated during it, the
// next animation frame and one more task, so that what it changed has
// rendered. Actions already wait for one frame after their input (see
// perform), so a page that has gone quiet by then costs one task, not a
// frame (~17 ms at 60 Hz). A navigation it started is waited for by the
// task never running in the old document, which the bound covers. It
// does nothing while a dialog waits, since no frame renders then, and
// reports no error: settling is best effort. ctx bounds it too. Right
// after an action whose own wait (see Tab.perform) saw the page run what
// its input queued, it returns at once.
func (t *Tab) Settle(ctx context.Context, bound time.Duration) {
	if t.settled.Swap(false) || t.CheckDialog() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	s, err := t.session(ctx)
	if err != nil {
		return
	}
	callJS(ctx, s, jsCall{}, settleJS, nil)
}

// settleJS resolves after one task, or after a frame and a task when the
// document mutated meanwhile.
var settleJS = loadScript("settle")
