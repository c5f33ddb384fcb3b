package webdriver

import (
	"context"
	"errors"
	"sync"
	"time"
)

// KeepAliveInterval is how often a held session is pinged: well inside
// Selenium Grid's default session timeout of 300 s.
const KeepAliveInterval = 60 * time.Second

// KeepAlive pings s every interval until stop is called, so that a grid
// does not end a session that is in use only over CDP (which its idle
// timer does not see). lost is called once, from the pinging goroutine,
// when the remote end says the session is gone; a ping that fails
// otherwise (a network blip) is retried at the next tick. stop returns
// once the goroutine has ended.
func (s *Session) KeepAlive(interval time.Duration, lost func()) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := s.Ping(ctx); errors.Is(err, ErrSessionLost) {
				lost()
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
}
