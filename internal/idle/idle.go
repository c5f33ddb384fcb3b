// Package idle runs an action once a period passes with no work in flight:
// the browser Manager stops an idle browser with it, and the CLI daemon
// exits with it.
package idle

import (
	"sync"
	"time"
)

// Clock calls its action after a period with no work in flight. Work is
// marked with Begin; the period starts again when the last work ends.
type Clock struct {
	after time.Duration
	fire  func(stillIdle func() bool)

	mu       sync.Mutex
	inFlight int
	gen      int // bumped on every Begin and end, so a stale timer does nothing
	timer    *time.Timer
	stopped  bool
}

// New returns a Clock that calls fire once after has passed with no work in
// flight. fire runs on a timer goroutine; it should call stillIdle (after
// taking whatever locks it needs) and do nothing if that returns false: work
// may have begun between the timer firing and fire running. A zero or
// negative after turns the Clock off.
func New(after time.Duration, fire func(stillIdle func() bool)) *Clock {
	return &Clock{after: after, fire: fire}
}

// Begin marks work in flight until end is called (once; later calls do
// nothing). The period neither runs nor fires meanwhile.
func (c *Clock) Begin() (end func()) {
	c.mu.Lock()
	c.inFlight++
	c.gen++
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	var once sync.Once
	return func() { once.Do(c.end) }
}

// Start starts the period now, as if work had just ended: a daemon that no
// one ever calls still stops.
func (c *Clock) Start() { c.Begin()() }

func (c *Clock) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	c.gen++
	if c.inFlight > 0 || c.after <= 0 || c.stopped {
		return
	}
	gen := c.gen
	c.timer = time.AfterFunc(c.after, func() {
		c.fire(func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			return gen == c.gen && c.inFlight == 0 && !c.stopped
		})
	})
}

// Stop turns the Clock off: a pending period never fires.
func (c *Clock) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.timer != nil {
		c.timer.Stop()
	}
}
