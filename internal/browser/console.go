package browser

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browser/consolefmt"
	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Bounds of a tab's console record.
const (
	// ConsoleKeep is how many messages a tab keeps; older ones are dropped.
	ConsoleKeep = 500
	// ConsoleListChars caps a message's text in [Tab.ConsoleMessages].
	ConsoleListChars = 2_000
	// ConsoleFullChars caps a message's text in [Tab.ConsoleMessage].
	ConsoleFullChars = 20_000

	// consoleBudget bounds the bytes of text a tab keeps. Past it the
	// oldest messages keep only their first ConsoleListChars.
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

// Console message levels.
const (
	LevelLog   = "log"
	LevelInfo  = "info"
	LevelWarn  = "warn"
	LevelError = "error"
	LevelDebug = "debug"
)

// ConsoleLevels lists the levels a message can have.
var ConsoleLevels = []string{LevelLog, LevelInfo, LevelWarn, LevelError, LevelDebug}

// ErrConsoleMessageNotFound means no kept console message has the asked id.
var ErrConsoleMessageNotFound = errors.New("browser: no such console message")

// ConsoleMessageError names the id that matched no kept message.
type ConsoleMessageError struct {
	ID   int
	Gone bool // the id was issued, but its message was cleared or dropped
}

func (e *ConsoleMessageError) Error() string {
	if e.Gone {
		return fmt.Sprintf("browser: console message %d was cleared or dropped", e.ID)
	}
	return fmt.Sprintf("browser: no console message %d", e.ID)
}

func (e *ConsoleMessageError) Unwrap() error { return ErrConsoleMessageNotFound }

// ConsoleMessage is one console API call, uncaught exception or browser log
// entry of a tab.
type ConsoleMessage struct {
	// ID increases with each message and is never reused in the tab.
	ID int `json:"id"`
	// Level is one of ConsoleLevels.
	Level string `json:"level"`
	// Source is "console" for console API calls, "exception" for uncaught
	// exceptions, or the browser's log source: network, security, …
	Source string `json:"source"`
	// Type is the console API call (log, table, assert, …) for source
	// console.
	Type string `json:"type,omitempty"`
	Text string `json:"text"`
	// Truncated says Text was cut.
	Truncated bool      `json:"truncated,omitempty"`
	URL       string    `json:"url,omitempty"`
	Line      int       `json:"line,omitempty"` // 1-based; 0 when unknown
	Time      time.Time `json:"time"`
	// Stack holds the top frames as "fn url:line:col", in
	// [Tab.ConsoleMessage] only.
	Stack []string `json:"stack,omitempty"`
}

// ConsoleQuery selects console messages.
type ConsoleQuery struct {
	Levels []string // only these levels; all when empty
	Offset int      // skip this many of the matching messages, oldest first
	Limit  int      // return at most this many; 0 means all
	Clear  bool     // forget all the tab's messages once read
}

// ConsoleMessages returns the tab's console messages that match q, oldest
// first, with texts capped at ConsoleListChars, and how many match in all.
// Recording starts when cdpkit first attaches to the tab; the browser then
// replays what the page logged before. Messages are cleared when the main
// frame loads a new document, unless [Tab.SetConsolePreserve] is on, and
// only the last ConsoleKeep are kept. Messages the browser sent before the
// call are included: it waits for the recorder to handle them, briefly
// running a console function in an isolated world (never the page's own
// code). The context bounds attaching and that wait.
func (t *Tab) ConsoleMessages(ctx context.Context, q ConsoleQuery) ([]ConsoleMessage, int, error) {
	if _, err := t.Session(ctx); err != nil {
		return nil, 0, err
	}
	t.console.settle(ctx)
	msgs, total := t.console.query(q)
	return msgs, total, nil
}

// ConsoleMessage returns the message with the given id, with its text
// capped at ConsoleFullChars and its top stack frames. An id that matches
// no kept message is a [*ConsoleMessageError]. The context bounds the call.
func (t *Tab) ConsoleMessage(ctx context.Context, id int) (ConsoleMessage, error) {
	if _, err := t.Session(ctx); err != nil {
		return ConsoleMessage{}, err
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

// consoleLog is a tab's console record: a ring of the last ConsoleKeep
// messages, filled by one recorder goroutine per attached session. The zero
// value is ready to use.
type consoleLog struct {
	mu       sync.Mutex
	ring     []ConsoleMessage // guarded by mu; ConsoleKeep long once used
	first    int              // guarded by mu; index of the oldest message in ring
	n        int              // guarded by mu; messages in ring
	lastID   int              // guarded by mu; the last id issued
	trimmed  int              // guarded by mu; messages up to this id have short texts
	bytes    int              // guarded by mu; bytes of text in ring
	preserve bool             // guarded by mu
	run      *consoleRun      // guarded by mu; the current recorder
	fences   int              // guarded by mu; the last fence sent
	fenced   int              // guarded by mu; the last fence the recorder saw
	fenceCh  chan struct{}    // guarded by mu; closed when fenced grows
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

// fenceWorld names the isolated world fences run in. In the page's own
// world a global named inspect would shadow the console's, and the page
// would see the call.
const fenceWorld = "cdpkit-console"

// fence sends fence n. It makes the isolated world on first use and again
// when its context is gone with its document.
func (c *consoleLog) fence(ctx context.Context, run *consoleRun, n int) error {
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		world := run.world
		c.mu.Unlock()
		if world == 0 {
			_, main, err := loaders(ctx, run.sess)
			if err != nil {
				return err
			}
			w, err := cdpapi.Call(ctx, run.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: main, WorldName: fenceWorld})
			if err != nil {
				return err
			}
			world = w.ExecutionContextID
			c.mu.Lock()
			run.world = world
			c.mu.Unlock()
		}
		yes := true
		res, err := cdpapi.Call(ctx, run.sess, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "inspect(" + strconv.Itoa(n) + ")", ContextID: world,
			IncludeCommandLineAPI: &yes, Silent: &yes, ReturnByValue: &yes,
		})
		if err == nil && res.ExceptionDetails == nil {
			return nil
		}
		c.mu.Lock()
		if run.world == world {
			run.world = 0
		}
		c.mu.Unlock()
		if attempt > 0 || ctx.Err() != nil {
			if err == nil {
				err = errors.New("browser: the console fence threw")
			}
			return err
		}
	}
}

// awaitFence waits for the recorder to see fence. It reports false if ctx
// ended first.
func (c *consoleLog) awaitFence(ctx context.Context, run *consoleRun, fence int) bool {
	for {
		c.mu.Lock()
		if c.fenceCh == nil {
			c.fenceCh = make(chan struct{})
		}
		reached, moved := c.fenced >= fence, c.fenceCh
		c.mu.Unlock()
		if reached {
			return true
		}
		select {
		case <-moved:
		case <-run.done:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// handle records one event. It never blocks on anything but c.mu.
func (c *consoleLog) handle(ev cdp.Event) {
	var m ConsoleMessage
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

func (c *consoleLog) at(i int) *ConsoleMessage { return &c.ring[(c.first+i)%ConsoleKeep] }

func (c *consoleLog) addLocked(m ConsoleMessage) {
	if c.ring == nil {
		c.ring = make([]ConsoleMessage, ConsoleKeep)
	}
	c.lastID++
	m.ID = c.lastID
	if c.n == ConsoleKeep {
		c.bytes -= len(c.ring[c.first].Text)
		c.ring[c.first] = m
		c.first = (c.first + 1) % ConsoleKeep
	} else {
		c.ring[(c.first+c.n)%ConsoleKeep] = m
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
		if text, cut := consolefmt.Cap(old.Text, ConsoleListChars); cut {
			c.bytes -= len(old.Text) - len(text)
			old.Text, old.Truncated = text, true
		}
		c.trimmed = old.ID
	}
}

func (c *consoleLog) query(q ConsoleQuery) ([]ConsoleMessage, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ConsoleMessage
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
		if text, cut := consolefmt.Cap(m.Text, ConsoleListChars); cut {
			short.Text, short.Truncated = text, true
		}
		out = append(out, short)
	}
	if q.Clear {
		c.clearLocked()
	}
	return out, total
}

func (c *consoleLog) get(id int) (ConsoleMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n > 0 {
		if i := id - c.at(0).ID; i >= 0 && i < c.n {
			m := *c.at(i)
			m.Stack = append([]string(nil), m.Stack...)
			return m, nil
		}
	}
	return ConsoleMessage{}, &ConsoleMessageError{ID: id, Gone: id > 0 && id <= c.lastID}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
