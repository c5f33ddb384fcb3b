package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// A page can open dialogs in a loop (for(;;) confirm()). Each answer lets
// the loop open the next, and the page never runs anything else: it never
// unloads, so a navigation away waits forever, and under --dialogs=accept
// it never finishes loading either. cdpkit notices the loop and stops the
// page's renderer (Page.crash, which the browser handles without the busy
// page); the tab then recovers the way a crashed one does, by navigating.
const (
	// dialogStorm dialogs opening within dialogStormWindow are a loop.
	dialogStorm       = 8
	dialogStormWindow = time.Second
	// dialogLoopProbe is how long a page whose dialog was just dismissed
	// has to open another one for it to count as a loop.
	dialogLoopProbe = 300 * time.Millisecond
	// dialogLoopStop bounds stopping a looping page.
	dialogLoopStop = 2 * time.Second
)

// errLoopStopped fails the calls pending when cdpkit stops a dialog loop's
// renderer: the tab crashed, and why.
var errLoopStopped = fmt.Errorf("%w; cdpkit stopped its renderer: %w", driver.ErrDialogLoop, driver.ErrTargetCrashed)

// storming reports whether dialogStorm dialogs opened within the last
// dialogStormWindow.
func (d *dialogTracker) storming() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.opened < dialogStorm {
		return false
	}
	oldest := d.opens[d.opened%dialogStorm] // the ring's next slot holds the oldest
	return time.Since(oldest) < dialogStormWindow
}

// forgetStorm clears the record of when dialogs opened.
func (d *dialogTracker) forgetStorm() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.opens = [dialogStorm]time.Time{}
}

// nextOpen returns a channel closed when the next dialog opens, and the
// number of dialogs opened so far.
func (d *dialogTracker) nextOpen() (<-chan struct{}, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.wake == nil {
		d.wake = make(chan struct{})
	}
	return d.wake, d.opened
}

// breakDialogLoop is called before a navigation. When the page is in a
// dialog loop (it storms, or a dialog waits and the page opens another as
// soon as it is dismissed) it stops the renderer, so that the navigation
// loads the new document in a new one, and returns true. A page with one
// dialog open is left to the navigation, which closes it.
func (t *Tab) breakDialogLoop(ctx context.Context, s *cdp.Session) bool {
	if t.crashed.Load() {
		return false
	}
	looping := t.dialogs.storming()
	if !looping && t.CheckDialog() != nil {
		wake, _ := t.dialogs.nextOpen()
		pctx, cancel := context.WithTimeout(ctx, dialogLoopStop)
		_, err := t.HandleDialog(pctx, false, "")
		cancel()
		if err == nil {
			// This wait is the probe itself: a loop answers within it.
			timer := time.NewTimer(dialogLoopProbe)
			select {
			case <-wake:
				looping = true
			case <-timer.C:
			case <-ctx.Done():
			}
			timer.Stop()
		}
	}
	if !looping {
		return false
	}
	return t.stopRenderer(ctx, s)
}

// stopRenderer crashes the tab's renderer on purpose and reports whether
// it did; the tab is then marked crashed.
func (t *Tab) stopRenderer(ctx context.Context, s *cdp.Session) bool {
	ctx, cancel := context.WithTimeout(ctx, dialogLoopStop)
	defer cancel()
	t.b.log.Warn("a tab's page opens dialogs in a loop; stopping its renderer", "tab", string(t.id))
	t.loopStopped.Store(true)
	t.dialogs.forgetStorm() // the next document starts with a clean record
	_, err := cdpapi.Call(ctx, s, page.Crash, cdpapi.Empty{})
	if errors.Is(err, driver.ErrTargetCrashed) {
		t.dialogs.forgetOpen()
		return true
	}
	// Page.crash may also answer before the crash event: wait for it.
	crashed, stop := s.SubscribeEvents("Inspector.targetCrashed")
	defer stop()
	if t.crashed.Load() {
		return true
	}
	select {
	case <-crashed:
		t.crashed.Store(true)
		t.dialogs.forgetOpen()
		return true
	case <-ctx.Done():
		if t.crashed.Load() {
			t.dialogs.forgetOpen()
			return true
		}
		t.loopStopped.Store(false)
		return false
	}
}

// watchDialogStorm stops the renderer and ends ctx with cause
// ErrDialogLoop when dialogStorm dialogs open while ctx lives, until done
// is closed.
func (t *Tab) watchDialogStorm(ctx context.Context, done <-chan struct{}, cancel context.CancelCauseFunc) {
	wake, first := t.dialogs.nextOpen()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-wake:
		}
		var n int
		wake, n = t.dialogs.nextOpen()
		if n-first >= dialogStorm && t.dialogs.storming() {
			if s := t.dialogs.session(); s != nil {
				t.stopRenderer(ctx, s)
			}
			cancel(driver.ErrDialogLoop)
			return
		}
	}
}

// forgetOpen drops the dialog that waits for an answer: its renderer is
// gone, and with it the dialog; no close event will come.
func (d *dialogTracker) forgetOpen() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.open = nil
}

// session returns the session whose dialogs are followed, or nil.
func (d *dialogTracker) session() *cdp.Session {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.run == nil {
		return nil
	}
	return d.run.sess
}
