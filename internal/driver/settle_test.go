package driver_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// fakeWatch is an ActionWatch whose activity the test sets; a change
// closes the channel Activity returned.
type fakeWatch struct {
	mu      sync.Mutex
	a       driver.Activity // guarded by mu
	changed chan struct{}   // guarded by mu
	frames  int             // guarded by mu; AwaitFrame calls
	// frame, when set, runs in AwaitFrame: what the page does in the
	// frame the rule lets it run. It may block until ctx ends.
	frame func(ctx context.Context, w *fakeWatch)
	quiet time.Duration // what AwaitFrame returns
}

func (w *fakeWatch) Activity() (driver.Activity, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil {
		w.changed = make(chan struct{})
	}
	return w.a, w.changed
}

func (w *fakeWatch) AwaitFrame(ctx context.Context) time.Duration {
	w.mu.Lock()
	w.frames++
	w.mu.Unlock()
	if w.frame != nil {
		w.frame(ctx, w)
	}
	return w.quiet
}

// set changes the activity and wakes the rule.
func (w *fakeWatch) set(f func(a *driver.Activity)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.a)
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
}

func (w *fakeWatch) frameCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.frames
}

// settled is what SettleAction returned.
type settled struct {
	idle bool
	err  error
	took time.Duration // of fake time
}

// settleAsync runs SettleAction in a goroutine of the bubble and returns
// a channel that gets its result.
func settleAsync(ctx context.Context, w *fakeWatch, ordered bool) <-chan settled {
	out := make(chan settled, 1)
	go func() {
		start := time.Now()
		idle, err := driver.SettleAction(ctx, w, ordered)
		out <- settled{idle, err, time.Since(start)}
	}()
	return out
}

// returned reports whether the rule has returned, once every goroutine
// of the bubble is blocked.
func returned(out <-chan settled) (settled, bool) {
	synctest.Wait()
	select {
	case s := <-out:
		return s, true
	default:
		return settled{}, false
	}
}

func TestSettleActionNothingStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &fakeWatch{}
		s, ok := returned(settleAsync(t.Context(), w, true))
		if !ok {
			t.Fatal("the rule waits after input that started nothing")
		}
		if !s.idle || s.err != nil || s.took != 0 || w.frameCount() != 0 {
			t.Errorf("got idle %v, err %v, %v of fake time, %d frames; want idle, no error, no wait, no frame", s.idle, s.err, s.took, w.frameCount())
		}
	})
}

func TestSettleActionFetchThenNavigate(t *testing.T) {
	for _, late := range []bool{false, true} {
		name := "navigation in the frame"
		if late {
			name = "navigation's event after the frame"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The fetch's handler navigates in the frame after its
				// answer; the navigation ends at 500ms.
				w := &fakeWatch{a: driver.Activity{Fetches: 1, InFlight: 1}, quiet: 50 * time.Millisecond}
				w.frame = func(ctx context.Context, w *fakeWatch) {
					start := func() { w.set(func(a *driver.Activity) { a.NavStarted = true }) }
					if late {
						// The backend learns of it during the quiet spell.
						time.AfterFunc(20*time.Millisecond, start)
					} else {
						start()
					}
					time.AfterFunc(500*time.Millisecond, func() { w.set(func(a *driver.Activity) { a.NavDone = true }) })
				}
				out := settleAsync(t.Context(), w, true)
				if _, ok := returned(out); ok {
					t.Fatal("the rule returned with a fetch in flight")
				}
				if n := w.frameCount(); n != 0 {
					t.Errorf("%d frames while the fetch is in flight, want 0", n)
				}
				w.set(func(a *driver.Activity) { a.InFlight = 0 })
				s := <-out
				if s.idle || s.err != nil || s.took != 500*time.Millisecond {
					t.Errorf("got idle %v, err %v after %v of fake time; want not idle, no error when the navigation ended (500ms)", s.idle, s.err, s.took)
				}
				if n := w.frameCount(); n != 1 {
					t.Errorf("%d frames, want 1 after the fetch ended", n)
				}
			})
		})
	}
}

func TestSettleActionFetchNoNavigation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &fakeWatch{a: driver.Activity{Fetches: 2, InFlight: 2}, quiet: 30 * time.Millisecond}
		out := settleAsync(t.Context(), w, true)
		w.set(func(a *driver.Activity) { a.InFlight = 1 })
		if _, ok := returned(out); ok {
			t.Fatal("the rule returned with a fetch in flight")
		}
		w.set(func(a *driver.Activity) { a.InFlight = 0 })
		s := <-out
		if s.idle || s.err != nil {
			t.Errorf("got idle %v, err %v; want not idle (the page fetched), no error", s.idle, s.err)
		}
		if n := w.frameCount(); n != 1 {
			t.Errorf("%d frames, want 1 after the fetches ended", n)
		}
		if s.took != w.quiet {
			t.Errorf("took %v of fake time, want the quiet spell %v after the last fetch", s.took, w.quiet)
		}
	})
}

func TestSettleActionFetchNeverEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &fakeWatch{a: driver.Activity{Fetches: 1, InFlight: 1}}
		s := <-settleAsync(t.Context(), w, true)
		if s.err != nil || s.took != driver.ActionFetchWait {
			t.Errorf("got err %v after %v of fake time; want no error after ActionFetchWait (%v)", s.err, s.took, driver.ActionFetchWait)
		}
		if n := w.frameCount(); n != 0 {
			t.Errorf("%d frames after the fetch wait ran out, want 0", n)
		}
	})
}

func TestSettleActionNavigationNeverEnds(t *testing.T) {
	tests := []struct {
		name     string
		deadline time.Duration // 0: none
		want     time.Duration
	}{
		{"no deadline", 0, driver.ActionNavWait},
		{"half the time left", 4 * time.Second, 2 * time.Second},
		{"long deadline", time.Minute, driver.ActionNavWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.deadline)
					defer cancel()
				}
				w := &fakeWatch{a: driver.Activity{NavStarted: true}}
				s := <-settleAsync(ctx, w, true)
				if s.err != nil || s.took != tt.want {
					t.Errorf("got err %v after %v of fake time; want no error after %v", s.err, s.took, tt.want)
				}
			})
		})
	}
}

func TestSettleActionContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		w := &fakeWatch{a: driver.Activity{NavStarted: true}}
		out := settleAsync(ctx, w, true)
		if _, ok := returned(out); ok {
			t.Fatal("the rule returned before the navigation ended")
		}
		cancel()
		if s := <-out; !errors.Is(s.err, context.Canceled) {
			t.Errorf("got err %v, want context.Canceled", s.err)
		}
	})
}

func TestSettleActionDialogEndsWait(t *testing.T) {
	for _, start := range []driver.Activity{
		{NavStarted: true},
		{Fetches: 1, InFlight: 1},
	} {
		synctest.Test(t, func(t *testing.T) {
			w := &fakeWatch{a: start}
			out := settleAsync(t.Context(), w, true)
			if _, ok := returned(out); ok {
				t.Fatalf("from %+v: the rule returned before a dialog opened", start)
			}
			w.set(func(a *driver.Activity) { a.Dialog = true })
			s, ok := returned(out)
			if !ok {
				t.Fatalf("from %+v: the rule still waits with a dialog open", start)
			}
			if s.idle || s.err != nil {
				t.Errorf("from %+v: got idle %v, err %v; want not idle, no error", start, s.idle, s.err)
			}
		})
	}
}

func TestSettleActionUnordered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Events come late: the rule lets the page run a frame, then
		// waits for a quiet spell, which each event starts again.
		const quiet = 40 * time.Millisecond
		w := &fakeWatch{quiet: quiet}
		w.frame = func(ctx context.Context, w *fakeWatch) {
			time.AfterFunc(30*time.Millisecond, func() { w.set(func(*driver.Activity) {}) })
		}
		s := <-settleAsync(t.Context(), w, false)
		if !s.idle || s.err != nil || s.took != 30*time.Millisecond+quiet {
			t.Errorf("got idle %v, err %v after %v of fake time; want idle, no error after 30ms + the quiet spell", s.idle, s.err, s.took)
		}
		if n := w.frameCount(); n != 1 {
			t.Errorf("%d frames, want 1", n)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		// A navigation whose event comes during the quiet spell is
		// waited for past its end.
		w := &fakeWatch{quiet: 40 * time.Millisecond}
		w.frame = func(ctx context.Context, w *fakeWatch) {
			time.AfterFunc(10*time.Millisecond, func() { w.set(func(a *driver.Activity) { a.NavStarted = true }) })
			time.AfterFunc(200*time.Millisecond, func() { w.set(func(a *driver.Activity) { a.NavDone = true }) })
		}
		s := <-settleAsync(t.Context(), w, false)
		if s.idle || s.err != nil || s.took != 200*time.Millisecond {
			t.Errorf("got idle %v, err %v after %v of fake time; want not idle, no error when the navigation ended (200ms)", s.idle, s.err, s.took)
		}
	})
}

func TestSettleActionFrameBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A renderer that never answers: the frame wait ends at
		// ActionFrameWait, then the quiet spell runs.
		w := &fakeWatch{frame: func(ctx context.Context, _ *fakeWatch) { <-ctx.Done() }}
		s := <-settleAsync(t.Context(), w, false)
		if !s.idle || s.err != nil || s.took != driver.ActionFrameWait+driver.EventsQuiet {
			t.Errorf("got idle %v, err %v after %v of fake time; want idle, no error after ActionFrameWait + EventsQuiet", s.idle, s.err, s.took)
		}
	})
}
