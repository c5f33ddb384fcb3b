package firefox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
)

// After an action, Chromium's rule (internal/browser/act.go): when the
// input set off fetches and no navigation, wait for those fetches, then
// for what their handlers set off; when a navigation started, wait for its
// document to load. So a click whose handler fetches and then sets
// location reports the navigation in its result.

const (
	// actionFetchWait bounds the wait for the fetches an action set off;
	// it also never takes more than half the time left.
	actionFetchWait = time.Second
	// actionNavWait bounds the wait for a navigation an action started
	// to load; it also never takes more than half the time left.
	actionNavWait = 10 * time.Second
	// eventsQuiet is how long the wait, once the page has run a frame,
	// waits for one more event before deciding nothing more started.
	eventsQuiet = 5 * time.Millisecond
	// frameWait bounds the page's frame round trip after input.
	frameWait = 3 * time.Second
	// lullMax bounds the quiet spell of events an action waits for.
	lullMax = 300 * time.Millisecond
)

// activityMark is where a tab's activity stood before an action.
type activityMark struct{ lastID, navStarted int }

// mark notes the tab's activity before an action.
func (t *Tab) mark() activityMark {
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	return activityMark{lastID: t.net.lastID, navStarted: t.net.navStarted}
}

// state reports, since m, whether a navigation of the main frame started,
// whether every one started is over, how many fetches the main frame
// started and how many of them are in flight, and a channel closed at the
// next change.
func (t *Tab) state(m activityMark) (started, done bool, fetches, inFlight int, moved <-chan struct{}) {
	l := &t.net
	l.mu.Lock()
	defer l.mu.Unlock()
	started = l.navStarted > m.navStarted
	done = l.navEnded >= l.navStarted
	for i := len(l.list) - 1; i >= 0 && l.list[i].ID > m.lastID; i-- {
		if e := l.list[i]; e.Frame == t.id && (e.Type == "fetch" || e.Type == "xhr") {
			fetches++
			if !e.Done {
				inFlight++
			}
		}
	}
	if l.moved == nil {
		l.moved = make(chan struct{})
	}
	return started, done, fetches, inFlight, l.moved
}

// onNavigation counts the main frame's navigations starting and ending
// (loaded, failed, or a move within the document), for the
// action's wait.
func (b *Browser) onNavigation(e bidi.Event) {
	var p struct {
		Context string `json:"context"`
	}
	if json.Unmarshal(e.Params, &p) != nil {
		return
	}
	b.mu.Lock()
	t := b.tabs[p.Context]
	b.mu.Unlock()
	if t == nil {
		return
	}
	l := &t.net
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Method == "browsingContext.navigationStarted" {
		l.navStarted++
	} else if l.navEnded < l.navStarted {
		l.navEnded++
	}
	l.movedLocked()
}

// settleAction waits, after input the page ran (see perform), for the
// fetches the input set off and a navigation they or the input started,
// as Chromium's awaitNavigation does. Firefox sends network and
// navigation events on another channel than script results, so a round
// trip to the page does not bring the events of what the page started
// before it: after the page has run a frame, the wait lasts until the
// tab's events have been quiet for a spell that grows with the page's
// round trip time (see lull). It reports no error: the caller reports
// what it sees.
func (t *Tab) settleAction(ctx context.Context, m activityMark) {
	quiet := t.frameLull(ctx)
	if ctx.Err() != nil || t.promptOpen() {
		return
	}
	started, _, fetches, _, _ := t.state(m)
	if !started && fetches == 0 {
		t.lull(ctx, m, quiet)
		started, _, fetches, _, _ = t.state(m)
	}
	if !started && fetches > 0 {
		// The page fetched in reaction to the input, and may navigate
		// once the answer comes (fetch, then set location).
		t.awaitFetches(ctx, m)
		started, _, _, _, _ = t.state(m)
	}
	if started {
		t.awaitLoad(ctx, m)
	}
}

// frameLull lets the page run a frame (and so what input queued) and
// returns the quiet spell to wait for events: eventsQuiet, or more when
// a round trip to the page takes long (a busy machine), up to lullMax.
func (t *Tab) frameLull(ctx context.Context) time.Duration {
	fctx, cancel := context.WithTimeout(ctx, frameWait)
	defer cancel()
	t.callJSON(fctx, sharedScript("await_two_frames"), nil, nil)
	start := time.Now()
	t.call(fctx, t.id, readSandbox, "() => 0", nil, nil, 0)
	return min(max(eventsQuiet, 4*time.Since(start)), lullMax)
}

// lull waits until the tab's requests and navigations have not moved for
// quiet, or a navigation started since m.
func (t *Tab) lull(ctx context.Context, m activityMark, quiet time.Duration) {
	timer := time.NewTimer(quiet)
	defer timer.Stop()
	for {
		started, _, _, _, moved := t.state(m)
		if started {
			return
		}
		select {
		case <-moved:
			timer.Reset(quiet)
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// awaitFetches waits, at most actionFetchWait, until the fetches the
// action set off have ended or a navigation has started, then for a frame
// and a lull, in which a handler of the last answer may start one.
func (t *Tab) awaitFetches(ctx context.Context, m activityMark) {
	timer := time.NewTimer(halfLeft(ctx, actionFetchWait))
	defer timer.Stop()
	for {
		started, _, _, inFlight, moved := t.state(m)
		if started {
			return
		}
		if inFlight == 0 {
			break
		}
		select {
		case <-moved:
		case <-timer.C:
			return // a slow or endless request: report what is there
		case <-ctx.Done():
			return
		}
	}
	t.lull(ctx, m, t.frameLull(ctx))
}

// awaitLoad waits, at most actionNavWait, for the navigations under way to
// end.
func (t *Tab) awaitLoad(ctx context.Context, m activityMark) {
	timer := time.NewTimer(halfLeft(ctx, actionNavWait))
	defer timer.Stop()
	for {
		_, done, _, _, moved := t.state(m)
		if done || t.promptOpen() {
			return
		}
		select {
		case <-moved:
		case <-timer.C:
			return // still loading: the caller reports what it sees
		case <-ctx.Done():
			return
		}
	}
}

// halfLeft is d, or half the time ctx has left if that is less.
func halfLeft(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	return d
}
