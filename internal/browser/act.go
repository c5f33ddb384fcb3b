package browser

import (
	"context"
	"errors"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// actWith is performWith for callers that need not know about a dialog.
func (t *Tab) actWith(ctx context.Context, ps, es *cdp.Session, fn func(ctx context.Context) (inputWait, error)) error {
	_, err := t.performWith(ctx, ps, es, fn)
	return err
}

// inputWait is what an action's input function found out about the wait
// after its input, when the input went to the page's renderer.
type inputWait int

const (
	// waitAfterInput: nothing; perform waits as afterInputJS does.
	waitAfterInput inputWait = iota
	// waitDone: the input's own script already waited so in the same
	// call (as fill_text.js does), saving the round trip.
	waitDone
	// waitIfEvents: a script run after the input, in the page's
	// renderer, saw that it mutated nothing; unless the watch saw an
	// event of the page as well (a navigation, even within the document,
	// or a request), the page has nothing to show for the input, and
	// perform skips the wait. After input such as a key that moves the
	// focus, the renderer runs the next frame before any task, so a task
	// hop costs a frame (~8 ms at 60 Hz on average) where nothing waited
	// for it.
	waitIfEvents
)

// perform runs fn, which sends input to the page, and waits for what it set
// off. A JavaScript dialog that waits for an answer (see
// [Tab.RunUntilDialog]; or any dialog of es, the session of an element in
// an out-of-process frame) ends the call at once and sets dialog: the page
// runs nothing more until it is answered. Fetches the page started are
// waited for, and then a navigation of the tab (by the input or by their
// handlers) until its new document loads, as [driver.SettleAction] says.
// Otherwise perform returns once the page has run the tasks the input
// queued (see afterInputJS), by which time a navigation the input
// requested has started, and what the input changed has rendered; the
// next [Tab.Settle] then has nothing left to wait for.
func (t *Tab) perform(ctx context.Context, ps, es *cdp.Session, fn func(ctx context.Context) error) (dialog bool, err error) {
	return t.performWith(ctx, ps, es, func(ctx context.Context) (inputWait, error) { return waitAfterInput, fn(ctx) })
}

// performWith is perform for an fn that says what is left to wait for
// after its input (see inputWait); when it went to another renderer than
// ps's, that is ignored.
func (t *Tab) performWith(ctx context.Context, ps, es *cdp.Session, fn func(ctx context.Context) (inputWait, error)) (dialog bool, err error) {
	t.settled.Store(false)
	aw, stop := watchAction(ps, cdpapi.FrameID(t.id))
	defer stop()
	driver.Step(ctx, "sending the input")
	frameDialog := false
	dl, err := t.RunUntilDialog(ctx, func(ctx context.Context) error {
		if es != ps {
			var err error
			frameDialog, err = untilFrameDialog(ctx, es, func(ctx context.Context) error {
				_, err := fn(ctx)
				return err
			})
			if err != nil || frameDialog {
				return err
			}
			// The input went to another renderer, which a round trip
			// to the page's does not order: wait as for a dialog's
			// answer.
			return t.awaitNavigation(ctx, ps, aw, false, waitAfterInput)
		}
		w, err := fn(ctx)
		if err != nil {
			return err
		}
		return t.awaitNavigation(ctx, ps, aw, true, w)
	})
	if err != nil && t.closedItself(ctx, ps, err) {
		return false, nil
	}
	return dl != nil || frameDialog, err
}

// closedItself reports whether err, from input to the tab, is the tab
// closing in reaction to it (a popup whose button calls window.close):
// the page's session ps detached, and the browser reports the tab
// destroyed, which it does right after (waited for at most closeTabWait).
// The input then did what it was for, and the result reports the tab
// closed. The close may beat the reply to the input's last event, more
// often on a busy machine.
func (t *Tab) closedItself(ctx context.Context, ps *cdp.Session, err error) bool {
	if !errors.Is(err, cdp.ErrSessionClosed) || t.closeAsked.Load() {
		return false // not closed, or closed by cdpkit (close_page, the session's end)
	}
	select {
	case <-ps.Done():
	default:
		return false // another session closed: an iframe's
	}
	ctx, cancel := context.WithTimeout(ctx, closeTabWait)
	defer cancel()
	select {
	case <-t.b.targets.destroyed(t.id):
		return true
	case <-t.b.conn.Done():
	case <-ctx.Done():
	}
	return false
}

// untilFrameDialog runs fn until it returns or a dialog opens in the
// frame session es, which the tab's dialog tracking does not follow.
func untilFrameDialog(ctx context.Context, es *cdp.Session, fn func(ctx context.Context) error) (dialog bool, err error) {
	dialogs, stop := es.SubscribeEvents("Page.javascriptDialogOpening")
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return false, err
	case <-dialogs:
		cancel()
		<-done
		return true, nil
	}
}

// afterInputJS resolves once the page has run what input queued (and
// rendered what it changed), true if the document mutated meanwhile.
var afterInputJS = loadScript("after_input")

// actionWatch follows, from before some input, the main frame's events
// (actionEvents) in a navWatch. Its func runs on the connection's reader
// goroutine, so the watch has seen every event the page sent before the
// reply to a later command of its session.
type actionWatch struct {
	mu sync.Mutex
	w  navWatch // guarded by mu
	n  int      // guarded by mu; the events observed
	// seen gets a value, if it has room, after each event observed.
	seen chan struct{}
}

// watchAction starts following the events of main, the tab's main frame,
// on ps. Call the func to stop.
func watchAction(ps *cdp.Session, main cdpapi.FrameID) (*actionWatch, func()) {
	a := &actionWatch{w: navWatch{main: main}, seen: make(chan struct{}, 1)}
	stop := ps.Watch(func(ev cdp.Event) {
		a.mu.Lock()
		a.w.observe(ev)
		a.n++
		a.mu.Unlock()
		select {
		case a.seen <- struct{}{}:
		default:
		}
	}, actionEvents...)
	return a, stop
}

// uncommitted reports whether the navigation a saw stopped without a new
// document: it was aborted, or it became a download.
func (a *actionWatch) uncommitted() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.started && a.w.stopped && a.w.loader == ""
}

// events reports how many events a has observed.
func (a *actionWatch) events() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// awaitNavigation waits, by the rule shared with every backend
// (driver.SettleAction), for what input set off, seen by a. With ordered,
// the input went to ps's renderer: one round trip (afterInputJS) lets the
// page run what the input queued and brings every event of it, so when
// nothing started there is nothing more to wait for; w may spare that
// round trip (see inputWait). Otherwise (an answered dialog, input to
// another renderer) the rule lets the page run a frame and waits for a
// quiet spell of events. A dialog ends ctx (see Tab.RunUntilDialog),
// and so the wait.
func (t *Tab) awaitNavigation(ctx context.Context, ps *cdp.Session, a *actionWatch, ordered bool, w inputWait) error {
	ran := false // the page ran what the input queued
	switch {
	case ordered && (w == waitDone || w == waitIfEvents && a.events() == 0):
		ran = true
	case ordered:
		ictx, cancel := context.WithTimeout(ctx, frameWait)
		var mutated bool
		ran = callJS(ictx, ps, jsCall{}, afterInputJS, &mutated) == nil
		cancel()
	}
	idle, err := driver.SettleAction(ctx, settleWatch{a, ps}, ordered)
	t.noteUncommitted(a)
	// When the page ran what the input queued and started nothing,
	// Settle need not wait again.
	t.settled.Store(ran && idle)
	return err
}

// settleWatch is an actionWatch as the shared settle rule sees it.
type settleWatch struct {
	*actionWatch
	ps *cdp.Session
}

// Activity implements driver.ActionWatch. Dialog stays false: a dialog
// ends the context of the wait instead (see Tab.RunUntilDialog). The
// channel gets a value after each later event, or holds one from an
// earlier event.
func (w settleWatch) Activity() (driver.Activity, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return driver.Activity{
		NavStarted: w.w.started,
		NavDone:    w.w.done(),
		Fetches:    w.w.fetched,
		InFlight:   len(w.w.fetches),
	}, w.seen
}

// AwaitFrame implements driver.ActionWatch: the page runs what the input
// queued, such as a form submission. The wait is not ordered after input
// to another renderer or an answered dialog, so events may still be on
// their way after the reply: the shortest quiet spell covers them.
func (w settleWatch) AwaitFrame(ctx context.Context) time.Duration {
	callJS(ctx, w.ps, jsCall{}, awaitFrameJS, nil)
	return driver.EventsQuiet
}

// actionEvents are the events act watches on the page's session: the main
// frame's navigation, and the fetches the page makes in reaction; a
// navigation within the document, which navWatch ignores, still counts as
// an event (see waitIfEvents): its hashchange or popstate handler runs in
// a task of its own.
var actionEvents = []string{
	"Page.frameRequestedNavigation", "Page.frameStartedNavigating", "Page.frameNavigated", "Page.navigatedWithinDocument",
	"Page.lifecycleEvent", "Page.frameStoppedLoading",
	"Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed",
}

// navWatch follows the events of the main frame after some input: whether
// a navigation started, and whether it is over.
type navWatch struct {
	main    cdpapi.FrameID // the main frame's id, which is the tab's target id
	started bool
	loader  cdpapi.LoaderID // the committed document's, once committed
	loaded  bool
	stopped bool
	// fetches are the main frame's fetch and XHR requests in flight that
	// began after the input; fetched counts those that began.
	fetches map[network.RequestID]bool
	fetched int
}

func (w *navWatch) observe(ev cdp.Event) {
	switch ev.Method {
	case "Page.frameRequestedNavigation":
		var e page.EventFrameRequestedNavigation
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main && e.Disposition == page.ClientNavigationDispositionCurrentTab {
			w.started = true
		}
	case "Page.frameStartedNavigating":
		var e page.EventFrameStartedNavigating
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main &&
			e.NavigationType != page.FrameStartedNavigatingNavigationTypeSameDocument &&
			e.NavigationType != page.FrameStartedNavigatingNavigationTypeHistorySameDocument {
			w.started = true
		}
	case "Page.frameNavigated":
		var e page.EventFrameNavigated
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.Frame != nil && e.Frame.ID == w.main && w.started {
			w.loader, w.loaded = e.Frame.LoaderID, false
		}
	case "Page.lifecycleEvent":
		var e page.EventLifecycleEvent
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main && e.Name == "load" && w.loader != "" && e.LoaderID == w.loader {
			w.loaded = true
		}
	case "Network.requestWillBeSent":
		var e network.EventRequestWillBeSent
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main &&
			(e.Type == network.ResourceTypeFetch || e.Type == network.ResourceTypeXHR) {
			if w.fetches == nil {
				w.fetches = map[network.RequestID]bool{}
			}
			if !w.fetches[e.RequestID] { // a redirect is the same request
				w.fetched++
			}
			w.fetches[e.RequestID] = true
		}
	case "Network.loadingFinished":
		var e network.EventLoadingFinished
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			delete(w.fetches, e.RequestID)
		}
	case "Network.loadingFailed":
		var e network.EventLoadingFailed
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			delete(w.fetches, e.RequestID)
		}
	case "Page.frameStoppedLoading":
		var e page.EventFrameStoppedLoading
		if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == w.main && w.started {
			w.stopped = true
		}
	}
}

// done reports whether the navigation is over: its document loaded, or the
// frame stopped loading (a download, a 204, an error page).
func (w *navWatch) done() bool { return w.loaded || w.stopped }
