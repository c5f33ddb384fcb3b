package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// queueWait bounds how long a test waits for the queue to do something
// that should happen at once.
const queueWait = 5 * time.Second

// mustAcquire takes q's slot or fails the test.
func mustAcquire(t *testing.T, q *opQueue, ctx context.Context, op string, limit int) func() {
	t.Helper()
	release, _, err := q.acquire(ctx, op, limit, nil)
	if err != nil {
		t.Fatalf("acquire(%s): %v", op, err)
	}
	return release
}

// waitQueued waits until n calls wait in q.
func waitQueued(t *testing.T, q *opQueue, n int) {
	t.Helper()
	browsertest.Eventually(t, queueWait, func() error {
		if got := q.queued(); got != n {
			return fmt.Errorf("queued = %d, want %d", got, n)
		}
		return nil
	})
}

func TestQueueRunsInArrivalOrder(t *testing.T) {
	var q opQueue
	first := mustAcquire(t, &q, t.Context(), "first", 0)
	const n = 5
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, _, err := q.acquire(t.Context(), "call", 0, nil)
			if err != nil {
				t.Errorf("acquire %d: %v", i, err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			release()
			release() // a second release is harmless
		}()
		waitQueued(t, &q, i+1) // arrive in order i
	}
	first()
	wg.Wait()
	for i, got := range order {
		if got != i {
			t.Fatalf("ran in order %v, want 0..%d", order, n-1)
		}
	}
	if len(order) != n {
		t.Fatalf("ran %d calls, want %d", len(order), n)
	}
}

func TestQueueRefusesPastLimit(t *testing.T) {
	var q opQueue
	release := mustAcquire(t, &q, t.Context(), "running", 0)
	const limit = 3
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for i := range limit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, _, err := q.acquire(ctx, "waiting", limit, nil); err == nil {
				r()
			}
		}()
		waitQueued(t, &q, i+1)
	}
	_, _, err := q.acquire(t.Context(), "one too many", limit, nil)
	var qf *driver.QueueFullError
	if !errors.As(err, &qf) || !errors.Is(err, driver.ErrQueueFull) || qf.Limit != limit {
		t.Fatalf("acquire past the limit = %v, want QueueFullError{Limit: %d}", err, limit)
	}
	cancel()
	wg.Wait()
	release()
	// The queue is usable again.
	mustAcquire(t, &q, t.Context(), "after", limit)()
}

func TestQueueWaitHonorsContext(t *testing.T) {
	var q opQueue
	release := mustAcquire(t, &q, t.Context(), "stuck", 0)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	steps, st := driver.WithSteps(ctx)
	_, _, err := q.acquire(steps, "late", 0, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire = %v, want DeadlineExceeded", err)
	}
	if got, want := st.Current(), "waiting for the tab's earlier calls to finish"; got != want {
		t.Errorf("step = %q, want %q", got, want)
	}
	if n := q.queued(); n != 0 {
		t.Errorf("queued after the timeout = %d, want 0: a call whose context ended leaves", n)
	}
	release()
	mustAcquire(t, &q, t.Context(), "next", 0)()
}

// TestQueueWatchdogReleasesStuckSlot runs the watchdog at its real limit,
// MaxHold, in a synctest bubble: the fake clock passes the two minutes at
// once, and the call behind the stuck one gets the slot exactly then.
func TestQueueWatchdogReleasesStuckSlot(t *testing.T) {
	synctest.Test(t, testQueueWatchdog)
}

func testQueueWatchdog(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))
	var q opQueue
	start := time.Now()
	if _, _, err := q.acquire(t.Context(), "hung_call", 0, log); err != nil {
		t.Fatal(err)
	} // never released
	ctx, cancel := context.WithTimeout(t.Context(), 2*MaxHold)
	defer cancel()
	release, waited, err := q.acquire(ctx, "next", 0, log)
	if err != nil {
		t.Fatalf("acquire behind a stuck slot: %v, want the watchdog to release it", err)
	}
	if got := time.Since(start); got != MaxHold {
		t.Errorf("the slot was released after %v, want MaxHold (%v)", got, MaxHold)
	}
	release()
	if !waited {
		t.Error("acquire behind a held slot says it did not wait")
	}
	mu.Lock()
	defer mu.Unlock()
	if !bytes.Contains(logs.Bytes(), []byte("op=hung_call")) {
		t.Errorf("log = %q, want the stuck call named", logs.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestQueueNavigation(t *testing.T) {
	var q opQueue
	if q.navigation() != nil {
		t.Fatal("a new queue has a navigation in flight")
	}
	done1 := q.navigating()
	done2 := q.navigating()
	nav := q.navigation()
	if nav == nil {
		t.Fatal("no navigation in flight after navigating")
	}
	done1()
	done1() // once only
	select {
	case <-nav:
		t.Fatal("navigation done while another is in flight")
	default:
	}
	done2()
	select {
	case <-nav:
	case <-time.After(queueWait):
		t.Fatal("navigation not done after both ended")
	}
	if q.navigation() != nil {
		t.Error("navigation in flight after all ended")
	}
}

// TestTabQueueAcrossTabs checks that a stuck call on one tab makes no call
// on another wait, and that reads wait for a navigation in flight only.
func TestTabQueueAcrossTabs(t *testing.T) {
	t.Parallel()
	_, a := newTab(t)
	_, b := newTab(t)
	stuck, err := a.Acquire(t.Context(), "stuck", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck()
	ctx, cancel := context.WithTimeout(t.Context(), queueWait)
	defer cancel()
	release, err := b.Acquire(ctx, "other tab", 0)
	if err != nil {
		t.Fatalf("acquire on another tab: %v", err)
	}
	release()
	if err := a.AwaitNavigation(ctx); err != nil {
		t.Errorf("AwaitNavigation with no navigation in flight: %v", err)
	}
	done := a.queue.navigating()
	short, cancelShort := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancelShort()
	if err := a.AwaitNavigation(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AwaitNavigation during a navigation = %v, want DeadlineExceeded", err)
	}
	done()
	if err := a.AwaitNavigation(ctx); err != nil {
		t.Errorf("AwaitNavigation after the navigation: %v", err)
	}
}
