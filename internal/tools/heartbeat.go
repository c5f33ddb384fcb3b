package tools

import (
	"context"
	"fmt"
	"time"
)

// heartbeatEvery is how often a long stage repeats its progress message.
const heartbeatEvery = 5 * time.Second

// heartbeat reports msg, with the time spent so far, every heartbeatEvery
// until stop is called or ctx ends, so that a client waiting on a long
// stage (a heap snapshot, an audit) sees the call is alive. It does
// nothing when the caller did not ask for progress. stop may be called
// more than once.
func heartbeat(ctx context.Context, msg string) (stop func()) {
	if _, ok := ctx.Value(progressKey{}).(func(string)); !ok {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(stopped)
		tick := time.NewTicker(heartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				progress(ctx, fmt.Sprintf("%s (%ds)", msg, int(time.Since(start).Seconds())))
			}
		}
	}()
	var closed bool
	return func() {
		if !closed {
			closed = true
			close(done)
		}
		<-stopped
	}
}
