package driver

import (
	"context"
	"sync"

	"github.com/cdpkit/cdpkit/internal/rpc"
)

// Ahead starts read and returns once read's first command is on its way
// to the browser, which answers commands in the order they are sent, so a
// command sent after Ahead returns is answered after it; or, if read sends
// none or over no rpc.Core, once read has returned. The func returned
// waits for read's result.
func Ahead[T any](ctx context.Context, read func(ctx context.Context) (T, error)) func() (T, error) {
	var (
		v    T
		err  error
		once sync.Once
	)
	queued, done := make(chan struct{}), make(chan struct{})
	sent := func() { once.Do(func() { close(queued) }) }
	go func() {
		defer close(done)
		defer sent()
		v, err = read(rpc.WithQueued(ctx, sent))
	}()
	<-queued
	return func() (T, error) {
		<-done
		return v, err
	}
}
