package firefox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// After an action, both backends follow one rule (driver.SettleAction):
// this file says how Firefox observes the page for it.

// lullMax bounds the quiet spell of events an action waits for.
const lullMax = 300 * time.Millisecond

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

// settleAction waits, after input the page ran (see perform), for what
// the input set off, by the rule both backends share
// (driver.SettleAction). Firefox sends network and navigation events on
// another channel than script results, so a round trip to the page does
// not bring the events of what the page started before it: after the
// page has run a frame, the rule waits until the tab's events have been
// quiet for a spell that grows with the page's round trip time (see
// AwaitFrame). It reports no error: the caller reports what it sees.
func (t *Tab) settleAction(ctx context.Context, m activityMark) {
	driver.SettleAction(ctx, settleWatch{t, m}, false)
}

// settleWatch is a tab's activity since a mark, as the shared settle
// rule sees it.
type settleWatch struct {
	t *Tab
	m activityMark
}

// Activity implements driver.ActionWatch. Dialog is a prompt left for the
// agent to answer; one the policy answers closes by itself.
func (w settleWatch) Activity() (driver.Activity, <-chan struct{}) {
	started, done, fetches, inFlight, moved := w.t.state(w.m)
	return driver.Activity{
		NavStarted: started,
		NavDone:    done,
		Fetches:    fetches,
		InFlight:   inFlight,
		Dialog:     w.t.promptWaits(),
	}, moved
}

// AwaitFrame implements driver.ActionWatch: it lets the page run a frame
// (and so what input queued) and returns the quiet spell to wait for
// events: driver.EventsQuiet, or more when a round trip to the page takes
// long (a busy machine), up to lullMax.
func (w settleWatch) AwaitFrame(ctx context.Context) time.Duration {
	t := w.t
	t.callJSON(ctx, sharedScript("await_two_frames"), nil, nil)
	start := time.Now()
	t.call(ctx, t.id, readSandbox, "() => 0", nil, nil, 0)
	return min(max(driver.EventsQuiet, 4*time.Since(start)), lullMax)
}
