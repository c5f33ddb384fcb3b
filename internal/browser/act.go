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
// runs nothing more until it is answered. A navigation of the tab is
// waited for until its new document loads, at most actionNavWait or half
// the time left. Otherwise perform returns once the page has run the
// tasks the input queued (see afterInputJS), by which time a navigation
// the input requested has started, and what the input changed has
// rendered; the next [Tab.Settle] then has nothing left to wait for.
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
	if !errors.Is(err, cdp.ErrSessionClosed) {
		return false
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

// eventsQuiet is how long awaitNavigation waits, when it cannot order
// the page's events by a round trip, for one more event before deciding
// that the input set off no navigation.
const eventsQuiet = 5 * time.Millisecond

// busyWait bounds the frame wait of awaitNavigation when it cannot order
// the page's events (an answered dialog, input to another renderer), and
// after the fetches an action set off: a renderer still running the task
// the answer resumed (or busy on a loaded machine) answers late, and what
// that task set off comes before its answer. A renderer that is not busy
// answers within a frame; only a busy one makes the wait longer than
// frameWait.
const busyWait = 3 * time.Second

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

// state reports whether a navigation started, whether it is over, and how
// many of the page's fetches are in flight.
func (a *actionWatch) state() (started, done bool, fetches int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.started, a.w.done(), len(a.w.fetches)
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

// awaitNavigation waits for a navigation that input set off, seen by a,
// to load. With ordered, the input went to ps's renderer: one round trip
// (afterInputJS) lets the page run what the input queued and brings every
// event of it, and when nothing started there is nothing more to wait for.
// w may spare that round trip (see inputWait).
// Otherwise (an answered dialog, input to another renderer) it waits for
// a frame and then a quiet spell of events.
func (t *Tab) awaitNavigation(ctx context.Context, ps *cdp.Session, a *actionWatch, ordered bool, w inputWait) error {
	settled := false
	switch {
	case ordered && (w == waitDone || w == waitIfEvents && a.events() == 0):
		settled = true
	case ordered:
		ictx, cancel := context.WithTimeout(ctx, frameWait)
		var mutated bool
		settled = callJS(ictx, ps, jsCall{}, afterInputJS, &mutated) == nil
		cancel()
	default:
		// Let the page run what the input queued, such as a form
		// submission; events may still be on their way after the reply.
		awaitFrameWithin(ctx, ps, busyWait)
		a.quiet(ctx)
	}
	if ctx.Err() != nil {
		return nil
	}
	started, done, fetches := a.state()
	if !started && fetches > 0 {
		// The page is fetching in reaction to the input, and may navigate
		// once the answer comes (fetch, then set location): wait for the
		// fetches, then for what their handlers set off.
		settled = false
		if err := t.awaitFetches(ctx, ps, a); err != nil {
			return err
		}
		started, done, _ = a.state()
	}
	if !started {
		// The page ran what the input queued: Settle need not wait again.
		t.settled.Store(settled)
		return nil
	}
	if done {
		t.noteUncommitted(a)
		return nil
	}
	wait := actionNavWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		if _, done, _ := a.state(); done {
			t.noteUncommitted(a)
			return nil
		}
		select {
		case <-a.seen:
		case <-timer.C:
			return nil // still loading: the caller reports what it sees
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// actionFetchWait bounds the wait for the fetches an action set off; it
// also never takes more than half the time left.
const actionFetchWait = time.Second

// awaitFetches waits, at most actionFetchWait, until the fetches a saw the
// page start have ended or a navigation has started, and then for one more
// frame and quiet spell, in which a handler of the last answer may start
// one.
func (t *Tab) awaitFetches(ctx context.Context, ps *cdp.Session, a *actionWatch) error {
	wait := actionFetchWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		started, _, fetches := a.state()
		if started {
			return nil
		}
		if fetches == 0 {
			break
		}
		select {
		case <-a.seen:
		case <-timer.C:
			return nil // a slow or endless request: report what is there
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	awaitFrameWithin(ctx, ps, busyWait)
	a.quiet(ctx)
	return nil
}

// quiet waits until a has seen no event for eventsQuiet.
func (a *actionWatch) quiet(ctx context.Context) {
	quiet := time.NewTimer(eventsQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-a.seen:
			quiet.Reset(eventsQuiet)
		case <-quiet.C:
			return
		case <-ctx.Done():
			return
		}
	}
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
	// began after the input.
	fetches map[network.RequestID]bool
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
