package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// waitLimit bounds every wait in these tests for something that should
// happen promptly, so that a bug fails the test instead of hanging it.
const waitLimit = 5 * time.Second

// fakeTransport is an in-memory Transport. The test plays the browser: it
// pushes what the browser would send with push and reads what the Conn wrote
// from sent.
type fakeTransport struct {
	in     chan []byte // unbuffered: push returns once the reader took the message
	sent   chan []byte
	closed chan struct{}

	closeOnce sync.Once
	closeErr  error // written once, before closed is closed
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{
		in:     make(chan []byte),
		sent:   make(chan []byte, 1024),
		closed: make(chan struct{}),
	}
}

func (f *fakeTransport) ReadMessage() ([]byte, error) {
	select {
	case <-f.closed:
		return nil, f.closeErr
	default:
	}
	select {
	case msg := <-f.in:
		return msg, nil
	case <-f.closed:
		return nil, f.closeErr
	}
}

func (f *fakeTransport) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case <-f.closed:
		return f.closeErr
	default:
	}
	select {
	case f.sent <- bytes.Clone(msg):
		return nil
	case <-f.closed:
		return f.closeErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeTransport) Close() error {
	f.breakWith(errors.New("fake transport closed"))
	return nil
}

// breakWith makes the transport fail as if the browser went away: pending and
// later reads and writes return err.
func (f *fakeTransport) breakWith(err error) {
	f.closeOnce.Do(func() {
		f.closeErr = err
		close(f.closed)
	})
}

// push hands msg to the Conn's reader and returns once the reader took it.
func (f *fakeTransport) push(t *testing.T, msg []byte) {
	t.Helper()
	select {
	case f.in <- msg:
	case <-time.After(waitLimit):
		t.Fatalf("reader did not take %s within %v", msg, waitLimit)
	}
}

// next returns the next command the Conn wrote.
func (f *fakeTransport) next(t *testing.T) outgoing {
	t.Helper()
	select {
	case raw := <-f.sent:
		var m outgoing
		if err := jsonv2.Unmarshal(raw, &m); err != nil {
			t.Fatalf("decoding sent message %s: %v", raw, err)
		}
		return m
	case <-time.After(waitLimit):
		t.Fatalf("no command written within %v", waitLimit)
		return outgoing{}
	}
}

// expectNothingSent fails the test if the Conn wrote a command.
func (f *fakeTransport) expectNothingSent(t *testing.T) {
	t.Helper()
	select {
	case raw := <-f.sent:
		t.Errorf("got command %s written, want none", raw)
	default:
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := jsonv2.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return b
}

// replyMsg is a successful reply carrying the JSON text result.
func replyMsg(t *testing.T, id int64, sessionID, result string) []byte {
	return mustMarshal(t, map[string]any{"id": id, "sessionId": sessionID, "result": jsonv2.Value(result)})
}

func errorReplyMsg(t *testing.T, id int64, sessionID string, code int64, message string) []byte {
	return mustMarshal(t, map[string]any{
		"id":        id,
		"sessionId": sessionID,
		"error":     map[string]any{"code": code, "message": message},
	})
}

// eventMsg is an event; params is JSON text.
func eventMsg(t *testing.T, sessionID, method, params string) []byte {
	m := map[string]any{"method": method, "params": jsonv2.Value(params)}
	if sessionID != "" {
		m["sessionId"] = sessionID
	}
	return mustMarshal(t, m)
}

// newTestConn returns a Conn over a fake transport, closed at the end of the
// test. Protocol warnings are discarded: some tests provoke them on purpose.
func newTestConn(t *testing.T, opts *Options) (*Conn, *fakeTransport) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f := newFakeTransport()
	c := NewConn(f, opts)
	t.Cleanup(func() { c.Close() })
	return c, f
}

// callResult is the outcome of a call run in the background.
type callResult struct {
	result jsonv2.Value
	err    error
	took   time.Duration
}

// goCall runs s.Call in a new goroutine and delivers its outcome on the
// returned channel.
func goCall(ctx context.Context, s *Session, method string, params any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		start := time.Now()
		var res jsonv2.Value
		err := s.Call(ctx, method, params, &res)
		ch <- callResult{result: res, err: err, took: time.Since(start)}
	}()
	return ch
}

func await(t *testing.T, ch <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitLimit):
		t.Fatalf("call did not return within %v", waitLimit)
		return callResult{}
	}
}

// assertClosed fails the test unless ch is closed within waitLimit.
func assertClosed[T any](t *testing.T, what string, ch <-chan T) {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("%s not closed within %v", what, waitLimit)
		}
	}
}

func isClosed[T any](ch <-chan T) bool {
	select {
	case _, ok := <-ch:
		return !ok
	default:
		return false
	}
}

// TestTimedOutCallLeavesConnUsable is a regression test: a command whose
// reply never comes must fail with a *TimeoutError by its deadline, and must
// not poison the connection. Its late reply is discarded and the next
// command gets its own reply.
func TestTimedOutCallLeavesConnUsable(t *testing.T) {
	// In a synctest bubble: the fake clock makes the timings exact.
	synctest.Test(t, func(t *testing.T) {
		c, f := newTestConn(t, nil)
		s := c.Browser()

		const budget = 100 * time.Millisecond
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), budget)
		defer cancel()
		slow := goCall(ctx, s, "Runtime.evaluate", map[string]string{"expression": "slow()"})
		slowID := f.next(t).ID

		r := await(t, slow)
		took := time.Since(start)
		var te *TimeoutError
		if !errors.As(r.err, &te) {
			t.Fatalf("got error %v (%T), want *TimeoutError", r.err, r.err)
		}
		if te.Method != "Runtime.evaluate" {
			t.Errorf("got TimeoutError.Method %q, want %q", te.Method, "Runtime.evaluate")
		}
		for _, target := range []error{ErrTimeout, context.DeadlineExceeded} {
			if !errors.Is(r.err, target) {
				t.Errorf("got error %v, want it to match %v", r.err, target)
			}
		}
		if took != budget {
			t.Errorf("got timeout after %v, want %v", took, budget)
		}

		// The next call is pending while the late reply arrives, so a reply
		// misrouted by id would reach it.
		fresh := goCall(t.Context(), s, "Runtime.evaluate", map[string]string{"expression": "fresh()"})
		freshID := f.next(t).ID
		if freshID == slowID {
			t.Fatalf("got id %d reused for the next call", freshID)
		}
		f.push(t, replyMsg(t, slowID, "", `{"who":"late"}`))
		f.push(t, replyMsg(t, freshID, "", `{"who":"fresh"}`))

		r = await(t, fresh)
		if r.err != nil {
			t.Fatalf("call after timeout: got error %v, want nil", r.err)
		}
		if got, want := string(r.result), `{"who":"fresh"}`; got != want {
			t.Errorf("got result %s, want %s", got, want)
		}
		if err := c.Err(); err != nil {
			t.Errorf("got Conn.Err() %v after a timeout, want nil", err)
		}
		if isClosed(c.Done()) {
			t.Error("got Conn.Done() closed after a timeout, want open")
		}
	})
}

// TestTransportFailureFailsPendingCalls checks that when the transport dies
// every pending call fails promptly with ErrDisconnected and the Conn reports
// itself closed.
func TestTransportFailureFailsPendingCalls(t *testing.T) {
	// In a synctest bubble: the fake clock makes the timings exact.
	synctest.Test(t, func(t *testing.T) {
		c, f := newTestConn(t, nil)
		s := c.Browser()

		const n = 10
		var pending []<-chan callResult
		for i := range n {
			pending = append(pending, goCall(t.Context(), s, "Runtime.evaluate", map[string]int{"i": i}))
		}
		for range n {
			f.next(t) // every call is written and waiting for its reply
		}

		cause := errors.New("pipe broke")
		start := time.Now()
		f.breakWith(cause)
		for i, ch := range pending {
			r := await(t, ch)
			took := time.Since(start)
			if !errors.Is(r.err, ErrDisconnected) {
				t.Errorf("call %d: got error %v, want ErrDisconnected", i, r.err)
			}
			var de *DisconnectedError
			if !errors.As(r.err, &de) {
				t.Errorf("call %d: got error %T, want *DisconnectedError", i, r.err)
			}
			if !errors.Is(r.err, cause) {
				t.Errorf("call %d: got error %v, want it to wrap the cause %v", i, r.err, cause)
			}
			if took != 0 {
				t.Errorf("call %d: failed %v after the transport broke, want at once", i, took)
			}
		}

		select {
		case <-c.Done():
		case <-time.After(waitLimit):
			t.Fatal("Conn.Done() not closed after the transport broke")
		}
		if c.Err() == nil {
			t.Error("got Conn.Err() nil after the transport broke, want non-nil")
		}

		// At once: ErrDisconnected, not the call's deadline.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		err := s.Call(ctx, "Browser.getVersion", nil, nil)
		if !errors.Is(err, ErrDisconnected) {
			t.Errorf("call on a dead Conn: got error %v, want ErrDisconnected", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close after failure: got %v, want nil", err)
		}
	})
}

// TestCallDeadline checks which budget bounds a call: the context's deadline
// when it has one, else Options.DefaultTimeout.
func TestCallDeadline(t *testing.T) {
	tests := []struct {
		name           string
		defaultTimeout time.Duration
		ctxTimeout     time.Duration // 0 means no deadline
		want           time.Duration
	}{
		{name: "default timeout without deadline", defaultTimeout: 50 * time.Millisecond, want: 50 * time.Millisecond},
		{name: "context deadline wins over default", defaultTimeout: 50 * time.Millisecond, ctxTimeout: 150 * time.Millisecond, want: 150 * time.Millisecond},
		{name: "context deadline shorter than default", defaultTimeout: time.Minute, ctxTimeout: 50 * time.Millisecond, want: 50 * time.Millisecond},
	}
	for _, tt := range tests {
		// In a synctest bubble: the fake clock makes the timings exact.
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, f := newTestConn(t, &Options{DefaultTimeout: tt.defaultTimeout})
				start := time.Now()
				ctx := t.Context()
				if tt.ctxTimeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.ctxTimeout)
					defer cancel()
				}
				ch := goCall(ctx, c.Browser(), "Page.navigate", nil)
				f.next(t)
				r := await(t, ch)
				took := time.Since(start)
				var te *TimeoutError
				if !errors.As(r.err, &te) {
					t.Fatalf("got error %v, want *TimeoutError", r.err)
				}
				if took != tt.want || te.After != tt.want {
					t.Errorf("got timeout after %v (TimeoutError.After %v), want %v", took, te.After, tt.want)
				}
			})
		})
	}
}

// TestReplies checks how replies are decoded into results and errors.
func TestReplies(t *testing.T) {
	tests := []struct {
		name       string
		reply      func(t *testing.T, id int64) []byte
		wantResult string
		wantErr    *ProtocolError
	}{
		{
			name:       "result",
			reply:      func(t *testing.T, id int64) []byte { return replyMsg(t, id, "", `{"a":1}`) },
			wantResult: `{"a":1}`,
		},
		{
			name:       "empty result",
			reply:      func(t *testing.T, id int64) []byte { return replyMsg(t, id, "", `{}`) },
			wantResult: `{}`,
		},
		{
			name: "error reply",
			reply: func(t *testing.T, id int64) []byte {
				return errorReplyMsg(t, id, "", -32000, "No node with given id found")
			},
			wantErr: &ProtocolError{Method: "DOM.describeNode", Code: -32000, Message: "No node with given id found"},
		},
		{
			name: "unknown method",
			reply: func(t *testing.T, id int64) []byte {
				return errorReplyMsg(t, id, "", -32601, "'DOM.describeNode' wasn't found")
			},
			wantErr: &ProtocolError{Method: "DOM.describeNode", Code: -32601, Message: "'DOM.describeNode' wasn't found"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := newTestConn(t, nil)
			ch := goCall(t.Context(), c.Browser(), "DOM.describeNode", map[string]int{"nodeId": 7})
			f.push(t, tt.reply(t, f.next(t).ID))
			r := await(t, ch)
			if tt.wantErr == nil {
				if r.err != nil {
					t.Fatalf("got error %v, want nil", r.err)
				}
				if got := string(r.result); got != tt.wantResult {
					t.Errorf("got result %s, want %s", got, tt.wantResult)
				}
				return
			}
			var pe *ProtocolError
			if !errors.As(r.err, &pe) {
				t.Fatalf("got error %v (%T), want *ProtocolError", r.err, r.err)
			}
			if *pe != *tt.wantErr {
				t.Errorf("got %+v, want %+v", *pe, *tt.wantErr)
			}
			for _, sentinel := range []error{ErrTimeout, ErrDisconnected, ErrSessionClosed} {
				if errors.Is(r.err, sentinel) {
					t.Errorf("got error %v matching %v, want a protocol error only", r.err, sentinel)
				}
			}
		})
	}
}

// TestEventRouting checks that events reach exactly the subscribers of their
// (session id, method).
func TestEventRouting(t *testing.T) {
	c, f := newTestConn(t, nil)

	type key struct{ session, method string }
	subs := []key{
		{"A", "X.y"},
		{"B", "X.y"},
		{"A", "X.z"},
		{"", "X.y"},
	}
	// Each event carries a tag; want lists the tags each subscriber gets.
	events := []struct {
		session, method, tag string
	}{
		{"B", "X.y", "b-xy"},
		{"A", "X.z", "a-xz"},
		{"", "X.y", "browser-xy"},
		{"A", "X.y", "a-xy"},
		{"C", "X.y", "c-xy"},
		{"A", "Other.event", "a-other"},
	}
	want := map[key][]string{
		{"A", "X.y"}: {"a-xy"},
		{"B", "X.y"}: {"b-xy"},
		{"A", "X.z"}: {"a-xz"},
		{"", "X.y"}:  {"browser-xy"},
	}

	chans := make(map[key]<-chan jsonv2.Value)
	for _, k := range subs {
		ch, cancel := c.Session(k.session).Subscribe(k.method)
		t.Cleanup(cancel)
		chans[k] = ch
	}
	for _, e := range events {
		f.push(t, eventMsg(t, e.session, e.method, fmt.Sprintf(`{"tag":%q}`, e.tag)))
	}
	// A last event per subscriber marks the end: a misrouted event would
	// have been queued ahead of it.
	for _, k := range subs {
		f.push(t, eventMsg(t, k.session, k.method, `{"tag":"end"}`))
	}

	for _, k := range subs {
		t.Run(k.session+"/"+k.method, func(t *testing.T) {
			var got []string
			for {
				var v jsonv2.Value
				select {
				case v = <-chans[k]:
				case <-time.After(waitLimit):
					t.Fatalf("got %v and then nothing for %v, want the end marker", got, waitLimit)
				}
				var p struct {
					Tag string `json:"tag"`
				}
				if err := jsonv2.Unmarshal(v, &p); err != nil {
					t.Fatalf("decoding event %s: %v", v, err)
				}
				if p.Tag == "end" {
					break
				}
				got = append(got, p.Tag)
			}
			if !slices.Equal(got, want[k]) {
				t.Errorf("got events %v, want %v", got, want[k])
			}
		})
	}
}

// TestSubscribeEventsKeepsOrderAcrossMethods checks that one subscription to
// several methods gets them on one channel in the order the browser sent
// them, and only for its session.
func TestSubscribeEventsKeepsOrderAcrossMethods(t *testing.T) {
	c, f := newTestConn(t, nil)
	events, cancel := c.Session("A").SubscribeEvents("Network.responseReceived", "Page.loadEventFired")
	defer cancel()

	sent := []struct{ session, method string }{
		{"A", "Network.responseReceived"},
		{"B", "Page.loadEventFired"},
		{"A", "Page.loadEventFired"},
		{"A", "Network.requestWillBeSent"},
		{"A", "Network.responseReceived"},
	}
	for i, e := range sent {
		f.push(t, eventMsg(t, e.session, e.method, fmt.Sprintf(`{"n":%d}`, i)))
	}
	want := []string{`Network.responseReceived {"n":0}`, `Page.loadEventFired {"n":2}`, `Network.responseReceived {"n":4}`}

	var got []string
	for range want {
		select {
		case ev := <-events:
			got = append(got, ev.Method+" "+string(ev.Params))
		case <-time.After(waitLimit):
			t.Fatalf("got %v and then nothing for %v, want %v", got, waitLimit, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got events %v, want %v", got, want)
	}

	f.push(t, eventMsg(t, "", "Target.detachedFromTarget", `{"sessionId":"A"}`))
	if !waitClosed(events) {
		t.Error("got the channel open after the session detached, want it closed")
	}
}

// TestReaderNeverBlocksOnSubscriber checks that a subscriber that never reads
// cannot stall the reader: a reply still arrives promptly after a flood of
// events for it.
func TestReaderNeverBlocksOnSubscriber(t *testing.T) {
	c, f := newTestConn(t, nil)
	s := c.Browser()
	_, cancel := s.Subscribe("Network.dataReceived") // never read
	defer cancel()

	ch := goCall(t.Context(), s, "Runtime.evaluate", nil)
	id := f.next(t).ID

	const n = 20_000
	ev := eventMsg(t, "", "Network.dataReceived", `{"requestId":"1","dataLength":1}`)
	// The reader takes every event (push returns when it does) and the
	// reply behind them: an unread subscription never stalls it.
	for range n {
		f.push(t, ev)
	}
	f.push(t, replyMsg(t, id, "", `{"ok":true}`))
	r := await(t, ch)
	if r.err != nil {
		t.Fatalf("got error %v, want nil", r.err)
	}
}

// TestSessionDetach checks what Target.detachedFromTarget ends: the detached
// session's calls, subscriptions and Done channel, and nothing else.
func TestSessionDetach(t *testing.T) {
	c, f := newTestConn(t, nil)
	detached := c.Session("S")
	other := c.Session("T")

	detachedEvents, cancelDetached := detached.Subscribe("Page.loadEventFired")
	defer cancelDetached()
	browserEvents, cancelBrowser := c.Browser().Subscribe("Target.detachedFromTarget")
	defer cancelBrowser()

	const n = 3
	var pending []<-chan callResult
	for i := range n {
		pending = append(pending, goCall(t.Context(), detached, "Runtime.evaluate", map[string]int{"i": i}))
	}
	for range n {
		if m := f.next(t); m.SessionID != "S" {
			t.Fatalf("got command on session %q, want S", m.SessionID)
		}
	}
	otherCall := goCall(t.Context(), other, "Runtime.evaluate", nil)
	otherID := f.next(t).ID

	f.push(t, eventMsg(t, "", "Target.detachedFromTarget", `{"sessionId":"S","targetId":"T1"}`))

	for i, ch := range pending {
		r := await(t, ch)
		var se *SessionClosedError
		if !errors.As(r.err, &se) {
			t.Fatalf("pending call %d: got error %v (%T), want *SessionClosedError", i, r.err, r.err)
		}
		if !errors.Is(r.err, ErrSessionClosed) {
			t.Errorf("pending call %d: got error %v, want ErrSessionClosed", i, r.err)
		}
		if se.SessionID != "S" || se.Method != "Runtime.evaluate" {
			t.Errorf("pending call %d: got %+v, want session S, method Runtime.evaluate", i, *se)
		}
	}
	assertClosed(t, "detached session's subscription", detachedEvents)
	assertClosed(t, "detached session's Done()", detached.Done())

	// At once: ErrSessionClosed, not the call's deadline.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := detached.Call(ctx, "Runtime.evaluate", nil, nil)
	if !errors.Is(err, ErrSessionClosed) {
		t.Errorf("call after detach: got error %v, want ErrSessionClosed", err)
	}
	f.expectNothingSent(t)
	if ch, _ := detached.Subscribe("Page.loadEventFired"); !waitClosed(ch) {
		t.Error("subscription on a detached session: got an open channel, want it closed")
	}

	// The browser session and the other page session live on.
	select {
	case v := <-browserEvents:
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if err := jsonv2.Unmarshal(v, &p); err != nil || p.SessionID != "S" {
			t.Errorf("got browser event %s, want the detach of S", v)
		}
	case <-time.After(waitLimit):
		t.Error("browser subscriber did not get Target.detachedFromTarget")
	}
	if isClosed(c.Browser().Done()) || isClosed(other.Done()) {
		t.Error("got browser or other session Done() closed, want open")
	}
	f.push(t, replyMsg(t, otherID, "T", `{}`))
	if r := await(t, otherCall); r.err != nil {
		t.Errorf("other session's pending call: got error %v, want nil", r.err)
	}
	browserCall := goCall(t.Context(), c.Browser(), "Target.getTargets", nil)
	f.push(t, replyMsg(t, f.next(t).ID, "", `{"targetInfos":[]}`))
	if r := await(t, browserCall); r.err != nil {
		t.Errorf("browser call after detach: got error %v, want nil", r.err)
	}
}

// waitClosed reports whether ch is closed within waitLimit, discarding
// anything it delivers first.
func waitClosed[T any](ch <-chan T) bool {
	timeout := time.After(waitLimit)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// TestSubscriptionCancel checks that cancel closes the channel, whether or
// not events are queued for it, and that later events are not delivered.
func TestSubscriptionCancel(t *testing.T) {
	tests := []struct {
		name   string
		queued int // events pushed, and not read, before cancel
	}{
		{name: "idle", queued: 0},
		{name: "events queued", queued: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := newTestConn(t, nil)
			ch, cancel := c.Session("A").Subscribe("X.y")
			for range tt.queued {
				f.push(t, eventMsg(t, "A", "X.y", `{}`))
			}
			cancel()
			cancel() // idempotent
			if !waitClosed(ch) {
				t.Fatalf("channel not closed within %v of cancel", waitLimit)
			}
			// The reader must not trip over the cancelled subscription.
			f.push(t, eventMsg(t, "A", "X.y", `{}`))
			call := goCall(t.Context(), c.Browser(), "Browser.getVersion", nil)
			f.push(t, replyMsg(t, f.next(t).ID, "", `{}`))
			if r := await(t, call); r.err != nil {
				t.Errorf("call after cancel: got error %v, want nil", r.err)
			}
		})
	}
}

// TestCallCanceled checks that cancelling a call's context is reported as
// context.Canceled, not as a timeout.
func TestCallCanceled(t *testing.T) {
	tests := []struct {
		name          string
		cancelBefore  bool // cancel before the call starts, else while it waits
		withDeadline  bool // the context also has a (distant) deadline
		wantWriteSeen bool
	}{
		{name: "while waiting", wantWriteSeen: true},
		{name: "while waiting with deadline", withDeadline: true, wantWriteSeen: true},
		{name: "before the call", cancelBefore: true},
	}
	for _, tt := range tests {
		// In a synctest bubble: the fake clock makes the timings exact.
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, f := newTestConn(t, nil)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.withDeadline {
					var cancelDeadline context.CancelFunc
					ctx, cancelDeadline = context.WithTimeout(ctx, time.Minute)
					defer cancelDeadline()
				}
				if tt.cancelBefore {
					cancel()
				}
				ch := goCall(ctx, c.Browser(), "Runtime.evaluate", nil)
				if tt.wantWriteSeen {
					f.next(t)
					cancel()
				}
				r := await(t, ch)
				if !errors.Is(r.err, context.Canceled) {
					t.Errorf("got error %v, want context.Canceled", r.err)
				}
				if errors.Is(r.err, ErrTimeout) || errors.Is(r.err, context.DeadlineExceeded) {
					t.Errorf("got error %v, want no timeout", r.err)
				}
				if r.took != 0 {
					t.Errorf("got error after %v, want at once", r.took)
				}
				if c.Err() != nil {
					t.Errorf("got Conn.Err() %v after a cancel, want nil", c.Err())
				}
			})
		})
	}
}

// TestCDProtoGenericAPI checks that Session satisfies cdproto's typed API:
// cdp.Call encodes the method and params and decodes the result, and
// cdp.Events decodes events.
func TestCDProtoGenericAPI(t *testing.T) {
	c, f := newTestConn(t, nil)
	s := c.Session("S")

	type evalOutcome struct {
		res *runtime.EvaluateResult
		err error
	}
	done := make(chan evalOutcome, 1)
	go func() {
		byValue := true
		res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1", ReturnByValue: &byValue})
		done <- evalOutcome{&res, err}
	}()

	m := f.next(t)
	if m.Method != "Runtime.evaluate" || m.SessionID != "S" {
		t.Errorf("got method %q on session %q, want Runtime.evaluate on S", m.Method, m.SessionID)
	}
	var params map[string]any
	if err := jsonv2.Unmarshal(m.Params, &params); err != nil {
		t.Fatalf("decoding params %s: %v", m.Params, err)
	}
	wantParams := map[string]any{"expression": "1+1", "returnByValue": true}
	if !reflect.DeepEqual(params, wantParams) {
		t.Errorf("got params %v, want %v", params, wantParams)
	}
	f.push(t, replyMsg(t, m.ID, "S", `{"result":{"type":"number","value":2,"description":"2"}}`))

	var out evalOutcome
	select {
	case out = <-done:
	case <-time.After(waitLimit):
		t.Fatal("cdp.Call did not return")
	}
	if out.err != nil {
		t.Fatalf("cdp.Call: got error %v, want nil", out.err)
	}
	if out.res.Result == nil {
		t.Fatal("got no RemoteObject, want one")
	}
	if got := out.res.Result.Type; got != runtime.RemoteObjectTypeNumber {
		t.Errorf("got type %q, want %q", got, runtime.RemoteObjectTypeNumber)
	}
	if got := string(out.res.Result.Value); got != "2" {
		t.Errorf("got value %s, want 2", got)
	}

	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	events := cdpapi.Events(ctx, s, page.LoadEventFired) // subscribes now
	f.push(t, eventMsg(t, "S", "Page.loadEventFired", `{"timestamp":1234.5}`))
	for ev, err := range events {
		if err != nil {
			t.Fatalf("cdp.Events: got error %v, want an event", err)
		}
		if ev.Timestamp != 1234.5 {
			t.Errorf("got timestamp %v, want 1234.5", ev.Timestamp)
		}
		break
	}
}

// TestDetachRacingCalls checks that a call or subscription that races with
// the detach of its session still ends: either it completes before the
// detach or it fails with ErrSessionClosed. None may be left waiting for a
// reply that the browser will never send for a detached session.
func TestDetachRacingCalls(t *testing.T) {
	c, f := newTestConn(t, &Options{DefaultTimeout: time.Second})
	// A goroutine plays a browser that never answers; only the detach ends
	// the calls.
	go func() {
		for {
			select {
			case <-f.sent:
			case <-f.closed:
				return
			}
		}
	}()

	const rounds = 200
	for i := range rounds {
		id := fmt.Sprintf("S%d", i)
		s := c.Session(id)
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		subs := make(chan (<-chan jsonv2.Value), 2)
		for range 2 {
			wg.Go(func() {
				<-start
				errs <- s.Call(t.Context(), "Runtime.evaluate", nil, nil)
			})
			wg.Go(func() {
				<-start
				ch, _ := s.Subscribe("X.y")
				subs <- ch
			})
		}
		close(start)
		f.push(t, eventMsg(t, "", "Target.detachedFromTarget", fmt.Sprintf(`{"sessionId":%q}`, id)))
		wg.Wait()
		close(errs)
		close(subs)
		for err := range errs {
			if !errors.Is(err, ErrSessionClosed) {
				t.Fatalf("round %d: got error %v, want ErrSessionClosed", i, err)
			}
		}
		for ch := range subs {
			if !waitClosed(ch) {
				t.Fatalf("round %d: subscription made during detach never closed", i)
			}
		}
	}
}

// A detach that arrives before the session is known (a target that closes
// right after Target.attachToTarget replied) must still close the session
// handed out later: it must not look alive forever.
func TestDetachBeforeSessionIsKnown(t *testing.T) {
	c, f := newTestConn(t, nil)
	f.push(t, eventMsg(t, "", "Target.detachedFromTarget", `{"sessionId":"EARLY","targetId":"T1"}`))
	// push returns when the reader takes a message; taking the next one
	// means it finished handling the detach.
	f.push(t, eventMsg(t, "", "Target.targetInfoChanged", `{}`))
	s := c.Session("EARLY")
	if !waitClosed(s.Done()) {
		t.Fatal("Done() of a session detached before it was known is not closed")
	}
	// At once: ErrSessionClosed, not the call's deadline.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := s.Call(ctx, "Runtime.evaluate", nil, nil)
	if !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Call on it = %v, want ErrSessionClosed", err)
	}
	f.expectNothingSent(t)
}

// TestFailPending checks that FailPending fails the calls waiting on a
// session at once with the given error, and that the session still works.
func TestFailPending(t *testing.T) {
	c, f := newTestConn(t, nil)
	s := c.Browser()
	crashed := errors.New("renderer crashed")
	waiting := goCall(t.Context(), s, "Runtime.evaluate", map[string]string{"expression": "hang()"})
	f.next(t)
	s.FailPending(crashed)
	r := await(t, waiting)
	if !errors.Is(r.err, crashed) || !strings.Contains(r.err.Error(), "Runtime.evaluate") {
		t.Fatalf("got error %v, want the crash error naming the method", r.err)
	}
	next := goCall(t.Context(), s, "Runtime.evaluate", map[string]string{"expression": "1"})
	id := f.next(t).ID
	f.push(t, replyMsg(t, id, "", `{"ok":true}`))
	if r := await(t, next); r.err != nil {
		t.Fatalf("call after FailPending: got %v, want nil", r.err)
	}
}

// TestWatchSeesEventsBeforeLaterReplies checks that a watcher has handled an
// event by the time a reply sent after it is delivered, and nothing after
// it ends the watch.
func TestWatchSeesEventsBeforeLaterReplies(t *testing.T) {
	c, f := newTestConn(t, nil)
	var mu sync.Mutex
	var seen []string
	stop := c.Browser().Watch(func(ev Event) {
		mu.Lock()
		seen = append(seen, ev.Method+" "+string(ev.Params))
		mu.Unlock()
	}, "Target.targetCreated", "Target.targetDestroyed")

	res := goCall(t.Context(), c.Browser(), "Target.getTargets", nil)
	cmd := f.next(t)
	f.push(t, eventMsg(t, "", "Target.targetCreated", `{"n":1}`))
	f.push(t, eventMsg(t, "A", "Target.targetCreated", `{"n":2}`)) // another session
	f.push(t, eventMsg(t, "", "Page.loadEventFired", `{"n":3}`))   // not watched
	f.push(t, eventMsg(t, "", "Target.targetDestroyed", `{"n":4}`))
	f.push(t, replyMsg(t, cmd.ID, "", `{}`))
	if r := await(t, res); r.err != nil {
		t.Fatal(r.err)
	}
	mu.Lock()
	got := slices.Clone(seen)
	mu.Unlock()
	want := []string{`Target.targetCreated {"n":1}`, `Target.targetDestroyed {"n":4}`}
	if !slices.Equal(got, want) {
		t.Errorf("when the reply arrived the watcher had seen %v, want %v", got, want)
	}

	stop()
	f.push(t, eventMsg(t, "", "Target.targetCreated", `{"n":5}`))
	res = goCall(t.Context(), c.Browser(), "Target.getTargets", nil)
	f.push(t, replyMsg(t, f.next(t).ID, "", `{}`))
	await(t, res)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(want) {
		t.Errorf("after stop the watcher saw %v, want nothing more", seen[len(want):])
	}
}

// TestCloseWithGivesTheCause is a regression test: a launched browser whose
// exit is seen before its pipe breaks closes the Conn with the crash as the
// cause, and the call in flight reports that cause, not "connection closed".
func TestCloseWithGivesTheCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newTestConn(t, nil)
		pending := goCall(t.Context(), c.Browser(), "Runtime.evaluate", nil)
		f.next(t)
		cause := errors.New("the browser crashed")
		c.CloseWith(cause)
		r := await(t, pending)
		if !errors.Is(r.err, ErrDisconnected) || !errors.Is(r.err, cause) {
			t.Errorf("pending call after CloseWith = %v, want ErrDisconnected wrapping %v", r.err, cause)
		}
		if !errors.Is(c.Err(), cause) {
			t.Errorf("Conn.Err() = %v, want %v", c.Err(), cause)
		}
	})
}
