package browser

import (
	"context"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// swapWait bounds the retries of a command that found the tab between
// two documents.
const swapWait = 2 * time.Second

// isSwapping reports the error of a command sent while a navigation swaps
// the tab's document (and often its renderer process): for a moment the
// tab answers "Not attached to an active page".
func isSwapping(err error) bool {
	return cdp.Classify(err) == cdp.KindNotAttached
}

// whileSwapping runs call, and runs it again, for swapWait at most, while
// it fails because the tab is between documents. The context bounds it.
func whileSwapping[T any](ctx context.Context, call func() (T, error)) (T, error) {
	v, err := call()
	if !isSwapping(err) {
		return v, err
	}
	ctx, cancel := context.WithTimeout(ctx, swapWait)
	defer cancel()
	for isSwapping(err) {
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(20 * time.Millisecond):
		}
		v, err = call()
	}
	return v, err
}
