package cdp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cdpkit/cdpkit/internal/rpc"
	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Session is one CDP session on a Conn: the browser session, or a flattened
// session attached to a target. It implements cdproto's cdp.Session, so
// cdp.Call(ctx, s, page.Navigate, …) runs on it.
//
// A Session is safe for concurrent use. It becomes unusable when its target
// detaches (calls fail with [ErrSessionClosed]) or its Conn closes (calls fail
// with [ErrDisconnected]).
type Session struct {
	conn  *Conn
	id    string
	state *sessionState
}

var _ cdpapi.Session = (*Session)(nil)

// ID returns the session id; the browser session's is "".
func (s *Session) ID() string { return s.id }

// Conn returns the connection the session runs on.
func (s *Session) Conn() *Conn { return s.conn }

// Done is closed when the session's target detaches or the Conn closes.
func (s *Session) Done() <-chan struct{} { return s.state.done }

// Call sends a command and decodes its result into result, which may be nil.
// The context bounds the wait; without a deadline the Conn's default timeout
// applies. A timeout returns a [*TimeoutError] and leaves the session usable.
//
// Unless ctx is marked [ReadOnly], the command counts in [Session.Writes].
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	if ctx.Value(readOnlyKey{}) != nil {
		return s.conn.call(ctx, s.state, s.id, method, params, result)
	}
	s.state.sent.Add(1)
	defer s.state.settled.Add(1)
	return s.conn.call(ctx, s.state, s.id, method, params, result)
}

type readOnlyKey struct{}

// ReadOnly marks the commands sent under the returned context as reads
// that change nothing in the target (an accessibility tree, a DOM
// snapshot, a script that only looks), so that they do not count in
// [Session.Writes].
func ReadOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

// Writes returns how many commands not marked [ReadOnly] have been sent on
// s, and whether every one of them has returned (answered, or given up
// on by its caller). A reader that sees the same count twice, settled,
// knows that no one acted on the target through s in between.
func (s *Session) Writes() (n uint64, settled bool) {
	done := s.state.settled.Load()
	n = s.state.sent.Load()
	return n, done == n
}

// Subscribe starts buffering the events named method on this session and
// returns the channel they arrive on and a func that ends the subscription.
// The channel is closed after cancel, or when the session or Conn closes
// (after the buffered events are delivered). The reader never blocks on a
// slow subscriber; a subscriber that falls more than maxQueued events behind
// loses the oldest ones.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sub := newSubscription(s.conn.log, method, func(ev Event) jsonv2.Value { return ev.Params })
	return sub.out, s.conn.subscribe(s.state, s.id, sub, method)
}

// SubscribeEvents is like Subscribe for several methods at once, delivered
// on one channel in the order the browser sent them. Use it when the order
// of different events matters, such as a response before a load.
func (s *Session) SubscribeEvents(methods ...string) (<-chan Event, func()) {
	sub := newSubscription(s.conn.log, strings.Join(methods, ","), func(ev Event) Event { return ev })
	return sub.out, s.conn.subscribe(s.state, s.id, sub, methods...)
}

// Watch calls fn with each event named in methods on this session, on the
// Conn's reader goroutine and in the order the browser sent them: fn has
// handled an event before any reply the browser sent after it reaches its
// caller, so state that fn keeps is current when a later command returns.
// fn must be quick, must not block, and must not call into the Conn. The
// returned func ends the watch; fn is not called once it has returned.
func (s *Session) Watch(fn func(Event), methods ...string) func() {
	return s.conn.subscribe(s.state, s.id, &watcher{fn: fn}, methods...)
}

// watcher is the sink of [Session.Watch].
type watcher struct{ fn func(Event) }

func (w *watcher) push(ev Event) { w.fn(ev) }
func (w *watcher) finish()       {}
func (w *watcher) cancel()       {}

// Session returns a handle for an already attached session id, such as one
// announced by Target.attachedToTarget during auto-attach.
func (c *Conn) Session(id string) *Session {
	if id == "" {
		return c.browser
	}
	c.core.Mu.Lock()
	defer c.core.Mu.Unlock()
	st := c.sessions[id]
	if st == nil {
		st = &sessionState{done: make(chan struct{})}
		if c.core.ErrLocked() != nil || c.detached.has(id) {
			st.close()
		} else {
			c.sessions[id] = st
		}
	}
	return &Session{conn: c, id: id, state: st}
}

// Attach attaches to a target with a flattened session.
func (c *Conn) Attach(ctx context.Context, id target.ID) (*Session, error) {
	flatten := true
	res, err := cdpapi.Call(ctx, c.browser, target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &flatten})
	if err != nil {
		return nil, fmt.Errorf("cdp: attaching to %s: %w", id, err)
	}
	return c.Session(string(res.SessionID)), nil
}

// sessionState tracks what must end when a session detaches.
type sessionState struct {
	once    sync.Once
	done    chan struct{}
	pending map[int64]struct{} // guarded by Conn.core.Mu
	// sent and settled count the commands not marked ReadOnly, as they are
	// sent and as they return (see Session.Writes).
	sent, settled atomic.Uint64
}

func (st *sessionState) close() { st.once.Do(func() { close(st.done) }) }

func (st *sessionState) isClosed() bool {
	select {
	case <-st.done:
		return true
	default:
		return false
	}
}

// addPending and removePending need Conn.core.Mu held.
func (st *sessionState) addPending(id int64) {
	if st.pending == nil {
		st.pending = make(map[int64]struct{})
	}
	st.pending[id] = struct{}{}
}

func (st *sessionState) removePending(id int64) { delete(st.pending, id) }

// FailPending fails the calls now waiting on s with err, wrapped with each
// call's method, without closing s: a target whose renderer crashed never
// answers them, yet the session may serve the target's next document.
func (s *Session) FailPending(err error) {
	c := s.conn
	c.core.Mu.Lock()
	var failed []*rpc.Call
	for id := range s.state.pending {
		if cl := c.core.TakeLocked(id); cl != nil {
			failed = append(failed, cl)
		}
	}
	clear(s.state.pending)
	c.core.Mu.Unlock()
	for _, cl := range failed {
		cl.Resolve(nil, fmt.Errorf("cdp: %s: %w", cl.Method, err))
	}
}
