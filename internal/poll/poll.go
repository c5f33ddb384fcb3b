// Package poll retries a check until it holds, for the few places where no
// event says that it does: a frame session that attaches a moment after a
// navigation, a document being swapped, a browser to reconnect to.
// Anything that has an event waits on the event instead.
package poll

import (
	"context"
	"time"
)

// Options say how often to try and for how long.
type Options struct {
	// Interval is the wait between tries; it must be positive.
	Interval time.Duration
	// Max, when above Interval, makes the wait double after each try up
	// to Max (exponential backoff).
	Max time.Duration
	// Within bounds the whole poll; 0 leaves it to the context.
	Within time.Duration
}

// Until calls try at once (even when ctx has ended, so the caller always
// has an outcome), and again after each wait, until it returns true; then
// it returns nil. When Within passes first it returns an error
// matching context.DeadlineExceeded; when ctx ends, ctx's error. try gets a
// context bounded as the poll is, and is never called concurrently.
func Until(ctx context.Context, o Options, try func(ctx context.Context) bool) error {
	if o.Within > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Within)
		defer cancel()
	}
	wait := max(o.Interval, time.Millisecond)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for {
		if try(ctx) {
			return nil
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		if o.Max > wait {
			wait = min(2*wait, o.Max)
		}
	}
}
