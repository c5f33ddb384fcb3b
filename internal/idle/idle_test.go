package idle

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

const period = 10 * time.Second

// newCounting returns a Clock over period that counts the times it fired
// while still idle.
func newCounting() (*Clock, *atomic.Int32) {
	var fired atomic.Int32
	c := New(period, func(stillIdle func() bool) {
		if stillIdle() {
			fired.Add(1)
		}
	})
	return c, &fired
}

// TestClock checks the idle period with a fake clock: it fires once a
// period after the last work ended, never while work is in flight, and
// starts again at every end.
func TestClock(t *testing.T) {
	t.Run("fires a period after the last end", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, fired := newCounting()
			c.Begin()()
			time.Sleep(period - time.Millisecond) // fake time
			synctest.Wait()
			if n := fired.Load(); n != 0 {
				t.Fatalf("fired %d times before the period passed", n)
			}
			time.Sleep(time.Millisecond) // fake time (synctest)
			synctest.Wait()
			if n := fired.Load(); n != 1 {
				t.Fatalf("fired %d times when the period passed, want 1", n)
			}
			time.Sleep(3 * period) // fake time (synctest)
			synctest.Wait()
			if n := fired.Load(); n != 1 {
				t.Fatalf("fired %d times in all, want once", n)
			}
		})
	})
	t.Run("work longer than the period is not interrupted", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, fired := newCounting()
			c.Start()
			time.Sleep(period / 2) // fake time (synctest)
			end := c.Begin()
			time.Sleep(3 * period) // the work outlasts the period
			synctest.Wait()
			if n := fired.Load(); n != 0 {
				t.Fatalf("fired %d times during work", n)
			}
			end()
			end()              // a second end does nothing
			time.Sleep(period) // fake time (synctest)
			synctest.Wait()
			if n := fired.Load(); n != 1 {
				t.Fatalf("fired %d times a period after the work ended, want 1", n)
			}
		})
	})
	t.Run("overlapping work ends with the last", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, fired := newCounting()
			a, b := c.Begin(), c.Begin()
			a()
			time.Sleep(2 * period) // fake time (synctest)
			synctest.Wait()
			if n := fired.Load(); n != 0 {
				t.Fatalf("fired %d times with work in flight", n)
			}
			b()
			time.Sleep(period) // fake time (synctest)
			synctest.Wait()
			if n := fired.Load(); n != 1 {
				t.Fatalf("fired %d times after the last work ended, want 1", n)
			}
		})
	})
	t.Run("work that begins as it fires wins", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var c *Clock
			var sawIdle atomic.Bool
			c = New(period, func(stillIdle func() bool) {
				end := c.Begin() // work arrives between the timer and the check
				defer end()
				sawIdle.Store(stillIdle())
			})
			c.Start()
			time.Sleep(period) // fake time (synctest)
			synctest.Wait()
			if sawIdle.Load() {
				t.Fatal("stillIdle = true with work in flight")
			}
			c.Stop()
		})
	})
	t.Run("stopped and zero clocks never fire", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, fired := newCounting()
			c.Start()
			c.Stop()
			off := New(0, func(func() bool) { fired.Add(1) })
			off.Start()
			time.Sleep(3 * period) // fake time (synctest)
			synctest.Wait()
			if n := fired.Load(); n != 0 {
				t.Fatalf("fired %d times", n)
			}
		})
	})
}
