package browser

import (
	"context"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/poll"
)

// swapWait bounds the retries of a command that found the tab between
// two documents: the swap is quick, but a loaded machine (load average
// 50 on 2 cores) was seen to take over 2 s.
const swapWait = 5 * time.Second

// isSwapping reports the error of a command sent while a navigation swaps
// the tab's document (and often its renderer process): for a moment the
// tab answers "Not attached to an active page".
func isSwapping(err error) bool {
	return cdp.Classify(err) == cdp.KindNotAttached
}

// whileSwapping runs call, and runs it again, for swapWait at most, while
// it fails because the tab is between documents. The context bounds it.
func whileSwapping[T any](ctx context.Context, call func() (T, error)) (T, error) {
	var v T
	var err error
	poll.Until(ctx, poll.Options{Interval: 20 * time.Millisecond, Within: swapWait}, func(context.Context) bool {
		v, err = call()
		return !isSwapping(err)
	})
	return v, err
}
