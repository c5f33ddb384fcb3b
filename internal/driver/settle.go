package driver

import (
	"context"
	"time"
)

// The settle rule after an action, shared by every backend so that both
// wait for the same things: after input the page has run, when the page
// started fetches and no navigation, wait for those fetches (a click
// handler may fetch, then set location), then for what the handlers of
// their answers set off; when a navigation of the main frame started,
// wait for it to end. A backend says only how it observes the page (an
// [ActionWatch]); the rule is [SettleAction].

const (
	// ActionFetchWait bounds the wait for the fetches an action set off
	// to end; it also never takes more than half the time left.
	ActionFetchWait = time.Second
	// ActionNavWait bounds the wait for a navigation an action started
	// to end; it also never takes more than half the time left.
	ActionNavWait = 10 * time.Second
	// ActionFrameWait bounds the wait for the page to run a frame (see
	// [ActionWatch.AwaitFrame]): a renderer that is not busy answers
	// within a frame; a busy one (a loaded machine, or a task an
	// answered dialog resumed) answers late, and what it set off comes
	// before its answer. It also never takes more than half the time
	// left.
	ActionFrameWait = 3 * time.Second
	// EventsQuiet is the shortest quiet spell of events after which the
	// wait decides that the page started nothing more.
	EventsQuiet = 5 * time.Millisecond
)

// Activity is what a backend saw a tab's page do since a mark taken
// before an action's input.
type Activity struct {
	// NavStarted: a navigation of the main frame (not within its
	// document) started.
	NavStarted bool
	// NavDone: every navigation that started is over: its document
	// loaded, or it stopped without one (a download, a 204, an error).
	NavDone bool
	// Fetches counts the fetch and XHR requests of the main frame that
	// started; InFlight counts those not yet over.
	Fetches, InFlight int
	// Dialog: a dialog waits for an answer; the page runs nothing more
	// until it gets one.
	Dialog bool
}

// ActionWatch is a backend's view of a tab's page from a mark taken
// before an action's input. Its methods may be called from one goroutine
// at a time while the backend's own goroutines update what it reports.
type ActionWatch interface {
	// Activity reports what the page did since the mark, and a channel
	// that receives a value or is closed after a later change. It may
	// also do so with no change: the rule reads Activity again.
	Activity() (Activity, <-chan struct{})
	// AwaitFrame lets the page run a frame, and so the tasks queued
	// before it, bounded by ctx. It returns how long the page's events
	// must then be quiet before the rule decides that nothing more
	// started: at least EventsQuiet, longer when the backend learns of
	// events late.
	AwaitFrame(ctx context.Context) (quiet time.Duration)
}

// SettleAction waits for what an action's input set off, as seen by w.
// With ordered, w already holds every event of what the input queued
// (the backend's round trip to the page ran it and brought its events);
// otherwise the page first runs a frame and then the rule waits for a
// quiet spell of events. When the page started fetches and no
// navigation, it waits at most ActionFetchWait until they end or a
// navigation starts, then for a frame and a quiet spell, in which a
// handler of the last answer may start one. When a navigation started,
// it waits at most ActionNavWait for it to end. A dialog waiting for an
// answer ends the wait. Each of these waits takes at most half the time
// ctx has left.
//
// The bounds running out is no error: the caller reports what it sees.
// SettleAction returns ctx's error if ctx ended while it waited for
// fetches or a navigation, and idle when the page started neither since
// the mark, so that what the input queued has run and there is nothing
// to wait for.
func SettleAction(ctx context.Context, w ActionWatch, ordered bool) (idle bool, err error) {
	if !ordered {
		quiet := awaitFrame(ctx, w)
		if ctx.Err() != nil {
			return false, nil
		}
		if a, _ := w.Activity(); !a.NavStarted && a.Fetches == 0 && !a.Dialog {
			awaitQuiet(ctx, w, quiet)
		}
	}
	if ctx.Err() != nil {
		return false, nil
	}
	a, _ := w.Activity()
	if a.Dialog {
		return false, nil
	}
	if !a.NavStarted && a.Fetches > 0 {
		if err := awaitFetches(ctx, w); err != nil {
			return false, err
		}
		a, _ = w.Activity()
	}
	if !a.NavStarted {
		return a.Fetches == 0 && !a.Dialog, nil
	}
	return false, awaitNavigation(ctx, w)
}

// awaitFrame runs w.AwaitFrame, at most ActionFrameWait and half the
// time ctx has left.
func awaitFrame(ctx context.Context, w ActionWatch) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, HalfLeft(ctx, ActionFrameWait))
	defer cancel()
	return max(w.AwaitFrame(ctx), EventsQuiet)
}

// awaitQuiet waits until w has seen no change for quiet, a navigation
// has started, or a dialog waits.
func awaitQuiet(ctx context.Context, w ActionWatch, quiet time.Duration) {
	timer := time.NewTimer(quiet)
	defer timer.Stop()
	for {
		a, changed := w.Activity()
		if a.NavStarted || a.Dialog {
			return
		}
		select {
		case <-changed:
			timer.Reset(quiet)
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// awaitFetches waits, at most ActionFetchWait, until the fetches w saw
// have ended or a navigation has started, and then for a frame and a
// quiet spell, in which a handler of the last answer may start one.
func awaitFetches(ctx context.Context, w ActionWatch) error {
	timer := time.NewTimer(HalfLeft(ctx, ActionFetchWait))
	defer timer.Stop()
	for {
		a, changed := w.Activity()
		if a.NavStarted || a.Dialog {
			return nil
		}
		if a.InFlight == 0 {
			break
		}
		select {
		case <-changed:
		case <-timer.C:
			return nil // a slow or endless request: report what is there
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	awaitQuiet(ctx, w, awaitFrame(ctx, w))
	return nil
}

// awaitNavigation waits, at most ActionNavWait, until the navigations w
// saw start have ended.
func awaitNavigation(ctx context.Context, w ActionWatch) error {
	timer := time.NewTimer(HalfLeft(ctx, ActionNavWait))
	defer timer.Stop()
	for {
		a, changed := w.Activity()
		if a.NavDone || a.Dialog {
			return nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return nil // still loading: the caller reports what it sees
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// HalfLeft is d, or half the time ctx has left if that is less.
func HalfLeft(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	return d
}
