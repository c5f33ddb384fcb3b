package browser

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Queue bounds.
const (

	// MaxHold is how long a call may hold a tab's slot: past it a watchdog
	// releases the slot, so that a call stuck beyond every deadline cannot
	// wedge the tab.
	MaxHold = 2 * time.Minute
)

// opQueue serializes the state-changing calls on one tab: one holds the
// slot, the others wait in FIFO order. It also follows the tab's
// navigations in flight, which reads wait for. The zero value is ready to
// use.
type opQueue struct {
	mu      sync.Mutex
	holder  *slot         // guarded by mu; nil when the slot is free
	waiting []*slot       // guarded by mu; in arrival order
	nav     chan struct{} // guarded by mu; closed when no navigation is in flight any more; nil when none is
	navs    int           // guarded by mu; navigations in flight
	// holdLimit is the watchdog's limit; zero means MaxHold. Tests set it.
	holdLimit time.Duration
}

// slot is one call's place in the queue.
type slot struct {
	op       string
	log      *slog.Logger  // for the watchdog; may be nil
	ready    chan struct{} // closed when the call holds the slot
	released bool          // guarded by opQueue.mu
	watchdog *time.Timer   // guarded by opQueue.mu; set while it holds the slot
}

// acquire waits in FIFO order for the slot and returns the func that
// releases it, which is safe to call more than once. With limit calls
// waiting already it fails at once with a [*QueueFullError]; limit ≤ 0
// means DefaultQueueLimit. The context bounds the wait: a call whose
// context ends leaves the queue. op names the call in the watchdog's log.
func (q *opQueue) acquire(ctx context.Context, op string, limit int, log *slog.Logger) (release func(), waited bool, err error) {
	if limit <= 0 {
		limit = driver.DefaultQueueLimit
	}
	s := &slot{op: op, log: log, ready: make(chan struct{})}
	release = func() { q.release(s) }
	q.mu.Lock()
	if q.holder == nil && len(q.waiting) == 0 {
		q.grantLocked(s)
		q.mu.Unlock()
		return release, false, nil
	}
	if len(q.waiting) >= limit {
		q.mu.Unlock()
		return nil, false, &driver.QueueFullError{Limit: limit}
	}
	q.waiting = append(q.waiting, s)
	q.mu.Unlock()
	driver.Step(ctx, "waiting for the tab's earlier calls to finish")
	select {
	case <-s.ready:
		driver.Step(ctx, "")
		return release, true, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if q.holder == s { // granted as the context ended
		q.mu.Unlock()
		release()
	} else {
		for i, w := range q.waiting {
			if w == s {
				q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
				break
			}
		}
		q.mu.Unlock()
	}
	return nil, true, fmt.Errorf("browser: waiting for the tab's earlier calls: %w", ctx.Err())
}

// grantLocked gives s the slot and starts its watchdog.
func (q *opQueue) grantLocked(s *slot) {
	q.holder = s
	limit := q.holdLimit
	if limit <= 0 {
		limit = MaxHold
	}
	s.watchdog = time.AfterFunc(limit, func() {
		q.mu.Lock()
		stuck := q.holder == s && !s.released
		q.mu.Unlock()
		if stuck {
			if s.log != nil {
				s.log.Warn("released a tab's queue slot held too long", "op", s.op, "limit", limit)
			}
			q.release(s)
		}
	})
	close(s.ready)
}

// release frees s's slot, if it holds it, for the next call waiting.
func (q *opQueue) release(s *slot) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if s.released || q.holder != s {
		return
	}
	s.released = true
	s.watchdog.Stop()
	q.holder = nil
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		q.waiting = q.waiting[1:]
		q.grantLocked(next)
	}
}

// Waiting returns how many state-changing calls wait for the tab's slot.
func (t *Tab) Waiting() int { return t.queue.queued() }

// queued returns how many calls wait behind the holder.
func (q *opQueue) queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// navigating records a navigation in flight until done is called.
func (q *opQueue) navigating() (done func()) {
	q.mu.Lock()
	if q.nav == nil {
		q.nav = make(chan struct{})
	}
	q.navs++
	q.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.navs--; q.navs == 0 {
				close(q.nav)
				q.nav = nil
			}
		})
	}
}

// navigation returns a channel closed when no navigation is in flight any
// more, or nil when none is.
func (q *opQueue) navigation() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.nav
}

// Acquire waits for the tab's slot for state-changing calls, which run one
// at a time in arrival order, and returns the func that releases it (safe
// to call more than once; call it when the call ends). With limit calls
// waiting already (≤ 0 means DefaultQueueLimit) it fails at once with a
// [*QueueFullError]. The context bounds the wait. A slot held past
// [MaxHold] is released by a watchdog, which logs op.
//
// Calls that must never wait behind a stuck call (answering a dialog,
// closing the tab) do not call Acquire.
func (t *Tab) Acquire(ctx context.Context, op string, limit int) (release func(), err error) {
	release, waited, err := t.queue.acquire(ctx, op, limit, t.b.log)
	if err != nil || !waited {
		return release, err
	}
	// The tab may have closed while the call waited (close_page does not
	// queue): say so rather than fail on the first command.
	if !t.b.targets.isLive(t.id) {
		release()
		return nil, fmt.Errorf("browser: the tab closed while the call waited: %w", &cdp.SessionClosedError{Method: op})
	}
	return release, nil
}

// AwaitNavigation waits until no navigation started by [Tab.NavigateWith],
// [Tab.Reload], [Tab.GoBack] or [Tab.GoForward] is in flight on the tab,
// so that a read sees the new document. It returns early, with nil, when a
// dialog waits for an answer: the navigation cannot finish until then. The
// context bounds the wait.
func (t *Tab) AwaitNavigation(ctx context.Context) error {
	nav := t.queue.navigation()
	if nav == nil {
		return nil
	}
	driver.Step(ctx, "waiting for the tab's navigation to finish")
	dctx, stop := t.UntilDialog(ctx)
	defer stop()
	select {
	case <-nav:
		return nil
	case <-dctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("browser: waiting for the tab's navigation: %w", err)
	}
	return nil // a dialog opened
}
