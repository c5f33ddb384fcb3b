package browser

import (
	"context"
	"fmt"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browser/consolefmt"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Bounds of a tab's console record.
const (

	// consoleBudget bounds the bytes of text a tab keeps. Past it the
	// oldest messages keep only their first driver.ConsoleListChars.
	consoleBudget = 2 << 20
	// consoleFrames bounds the stack frames kept per message.
	consoleFrames = 8
	// consoleURLChars caps a URL (data: URLs can be huge).
	consoleURLChars = 300
	// consoleFenceWait bounds how long a read waits for its fence (see
	// settle): a page busy in a loop cannot answer.
	consoleFenceWait = 300 * time.Millisecond
	// consoleQuiet is how long a read without a fence waits for the
	// recorder to go quiet, and consoleSettleMax bounds that wait when a
	// page logs without pause.
	consoleQuiet     = 3 * time.Millisecond
	consoleSettleMax = 100 * time.Millisecond
)

// ConsoleMessages returns the tab's console messages that match q, oldest
// first, with texts capped at driver.ConsoleListChars, and how many match in all.
// Recording starts when cdpkit first attaches to the tab; the browser then
// replays what the page logged before. Messages are cleared when the main
// frame loads a new document, unless [Tab.SetConsolePreserve] is on, and
// only the last driver.ConsoleKeep are kept. Messages the browser sent before the
// call are included: it waits for the recorder to handle them, briefly
// running a console function in an isolated world (never the page's own
// code). The context bounds attaching and that wait.
func (t *Tab) ConsoleMessages(ctx context.Context, q driver.ConsoleQuery) ([]driver.ConsoleMessage, int, error) {
	if _, err := t.session(ctx); err != nil {
		return nil, 0, err
	}
	t.console.settle(ctx)
	msgs, total := t.console.query(q)
	return msgs, total, nil
}

// ConsoleMessage returns the message with the given id, with its text
// capped at driver.ConsoleFullChars and its top stack frames. An id that matches
// no kept message is a [*ConsoleMessageError]. The context bounds the call.
func (t *Tab) ConsoleMessage(ctx context.Context, id int) (driver.ConsoleMessage, error) {
	if _, err := t.session(ctx); err != nil {
		return driver.ConsoleMessage{}, err
	}
	t.console.settle(ctx)
	return t.console.get(id)
}

// ClearConsole forgets the tab's console messages, including those the
// browser has sent but the recorder has not yet handled (it waits for them
// under half a second). Ids keep increasing.
func (t *Tab) ClearConsole() {
	t.console.settle(context.Background())
	t.console.mu.Lock()
	defer t.console.mu.Unlock()
	t.console.clearLocked()
}

// SetConsolePreserve sets whether the tab's console messages survive
// navigations from now on. It is off by default.
func (t *Tab) SetConsolePreserve(on bool) {
	t.console.mu.Lock()
	defer t.console.mu.Unlock()
	t.console.preserve = on
}

// consoleLog is a tab's console record: a ring of the last driver.ConsoleKeep
// messages, filled by one recorder goroutine per attached session. The zero
// value is ready to use.
type consoleLog struct {
	mu       sync.Mutex
	ring     []driver.ConsoleMessage // guarded by mu; driver.ConsoleKeep long once used
	first    int                     // guarded by mu; index of the oldest message in ring
	n        int                     // guarded by mu; messages in ring
	lastID   int                     // guarded by mu; the last id issued
	trimmed  int                     // guarded by mu; messages up to this id have short texts
	bytes    int                     // guarded by mu; bytes of text in ring
	preserve bool                    // guarded by mu
	run      *consoleRun             // guarded by mu; the current recorder
	fences   int                     // guarded by mu; the last fence sent
	fenced   int                     // guarded by mu; the last fence the recorder saw
	fenceCh  chan struct{}           // guarded by mu; closed when fenced grows
}

// consoleRun is one recorder goroutine.
type consoleRun struct {
	sess   eventSession
	world  runtime.ExecutionContextID // guarded by consoleLog.mu; where fences run, 0 until made
	stop   func()                     // ends the subscription, and so the goroutine
	settle chan chan struct{}         // asks the goroutine to catch up, then close the reply
	done   chan struct{}              // closed when the goroutine ends
	events <-chan cdp.Event           // read only by the goroutine
}

// consoleEvents are the events a recorder follows.
var consoleEvents = []string{"Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded", "Page.frameNavigated",
	"Runtime.inspectRequested"}

// record starts recording s's console, replacing any earlier recorder of
// the tab. It subscribes before enabling the Runtime and Log domains, whose
// enabling replays what the page logged so far; what was recorded before is
// dropped, since the replay repeats it. The recorder ends when s closes.
func (c *consoleLog) record(ctx context.Context, s eventSession) error {
	events, stop := s.SubscribeEvents(consoleEvents...)
	run := &consoleRun{sess: s, stop: stop, settle: make(chan chan struct{}), done: make(chan struct{}), events: events}
	c.mu.Lock()
	prev := c.run
	c.run = run
	c.clearLocked()
	c.mu.Unlock()
	if prev != nil {
		prev.stop()
	}
	if _, err := cdpapi.Call(ctx, s, runtime.Enable, cdpapi.Empty{}); err != nil {
		stop()
		return fmt.Errorf("enabling runtime events: %w", err)
	}
	if _, err := cdpapi.Call(ctx, s, log.Enable, cdpapi.Empty{}); err != nil {
		stop()
		return fmt.Errorf("enabling log events: %w", err)
	}
	go c.follow(run)
	return nil
}

// follow records run's events until its channel closes.
func (c *consoleLog) follow(run *consoleRun) {
	defer close(run.done)
	defer run.stop()
	for {
		select {
		case ev, ok := <-run.events:
			if !ok {
				return
			}
			c.handle(ev)
		case reply := <-run.settle:
			ok := c.catchUp(run.events)
			close(reply)
			if !ok {
				return
			}
		}
	}
}

// catchUp handles events until none arrives for consoleQuiet, or for
// consoleSettleMax at most. It reports false when the channel closed.
func (c *consoleLog) catchUp(events <-chan cdp.Event) bool {
	deadline := time.Now().Add(consoleSettleMax)
	quiet := time.NewTimer(consoleQuiet)
	defer quiet.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return false
			}
			c.handle(ev)
			if time.Now().After(deadline) {
				return true
			}
			quiet.Reset(consoleQuiet)
		case <-quiet.C:
			return true
		}
	}
}

// settle waits until the recorder has handled the events the browser has
// sent so far, which the subscription delivers asynchronously. It sends a
// fence: inspect(N), a console-only function, makes the browser send
// Runtime.inspectRequested after every message logged before it. When the
// page cannot answer (busy, or between documents), it waits for the
// recorder to go quiet instead.
func (c *consoleLog) settle(ctx context.Context) {
	c.mu.Lock()
	run := c.run
	c.fences++
	fence := c.fences
	c.mu.Unlock()
	if run == nil {
		return
	}
	fctx, cancel := context.WithTimeout(ctx, consoleFenceWait)
	defer cancel()
	if c.fence(fctx, run, fence) == nil && c.awaitFence(fctx, run, fence) {
		return
	}
	if ctx.Err() != nil {
		return
	}
	reply := make(chan struct{})
	select {
	case run.settle <- reply:
	case <-run.done:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-reply:
	case <-run.done:
	case <-ctx.Done():
	}
}

// handle records one event. It never blocks on anything but c.mu.
func (c *consoleLog) handle(ev cdp.Event) {
	var m driver.ConsoleMessage
	switch ev.Method {
	case "Runtime.consoleAPICalled":
		var e runtime.EventConsoleAPICalled
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Type == runtime.ConsoleAPICalledTypeEndGroup {
			return
		}
		m = consoleAPIMessage(&e)
	case "Runtime.exceptionThrown":
		var e runtime.EventExceptionThrown
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.ExceptionDetails == nil {
			return
		}
		m = exceptionMessage(&e)
	case "Log.entryAdded":
		var e log.EventEntryAdded
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Entry == nil || isFaviconMiss(e.Entry) {
			return
		}
		m = logMessage(e.Entry)
	case "Runtime.inspectRequested":
		var e runtime.EventInspectRequested
		var fence int
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Object == nil || jsonv2.Unmarshal(e.Object.Value, &fence) != nil {
			return
		}
		c.mu.Lock()
		if fence > c.fenced {
			c.fenced = fence
			if c.fenceCh != nil {
				close(c.fenceCh)
				c.fenceCh = nil
			}
		}
		c.mu.Unlock()
		return
	case "Page.frameNavigated":
		var e page.EventFrameNavigated
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Frame == nil || e.Frame.ParentID != "" {
			return
		}
		c.mu.Lock()
		if !c.preserve {
			c.clearLocked()
		}
		if c.run != nil {
			c.run.world = 0 // gone with the old document
		}
		c.mu.Unlock()
		return
	default:
		return
	}
	c.mu.Lock()
	c.addLocked(m)
	c.mu.Unlock()
}

func (c *consoleLog) clearLocked() {
	clear(c.ring)
	c.first, c.n, c.bytes = 0, 0, 0
	c.trimmed = c.lastID
}

func (c *consoleLog) at(i int) *driver.ConsoleMessage { return &c.ring[(c.first+i)%driver.ConsoleKeep] }

func (c *consoleLog) addLocked(m driver.ConsoleMessage) {
	if c.ring == nil {
		c.ring = make([]driver.ConsoleMessage, driver.ConsoleKeep)
	}
	c.lastID++
	m.ID = c.lastID
	if c.n == driver.ConsoleKeep {
		c.bytes -= len(c.ring[c.first].Text)
		c.ring[c.first] = m
		c.first = (c.first + 1) % driver.ConsoleKeep
	} else {
		c.ring[(c.first+c.n)%driver.ConsoleKeep] = m
		c.n++
	}
	c.bytes += len(m.Text)
	// Ids in the ring are consecutive, so the first untrimmed message is
	// found by arithmetic; each message is trimmed at most once.
	for c.bytes > consoleBudget && c.n > 0 {
		i := max(c.trimmed+1-c.at(0).ID, 0)
		if i >= c.n {
			break
		}
		old := c.at(i)
		if text, cut := consolefmt.Cap(old.Text, driver.ConsoleListChars); cut {
			c.bytes -= len(old.Text) - len(text)
			old.Text, old.Truncated = text, true
		}
		c.trimmed = old.ID
	}
}

func (c *consoleLog) query(q driver.ConsoleQuery) ([]driver.ConsoleMessage, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []driver.ConsoleMessage
	total := 0
	for i := range c.n {
		m := c.at(i)
		if len(q.Levels) > 0 && !containsString(q.Levels, m.Level) {
			continue
		}
		total++
		if total <= q.Offset || (q.Limit > 0 && len(out) >= q.Limit) {
			continue
		}
		short := *m
		short.Stack = nil
		if text, cut := consolefmt.Cap(m.Text, driver.ConsoleListChars); cut {
			short.Text, short.Truncated = text, true
		}
		out = append(out, short)
	}
	if q.Clear {
		c.clearLocked()
	}
	return out, total
}

func (c *consoleLog) get(id int) (driver.ConsoleMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n > 0 {
		if i := id - c.at(0).ID; i >= 0 && i < c.n {
			m := *c.at(i)
			m.Stack = append([]string(nil), m.Stack...)
			return m, nil
		}
	}
	return driver.ConsoleMessage{}, &driver.ConsoleMessageError{ID: id, Gone: id > 0 && id <= c.lastID}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
