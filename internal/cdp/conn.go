// Package cdp is cdpkit's connection to a browser over the Chrome DevTools
// Protocol. It knows nothing about tools or MCP.
//
// A [Conn] owns one [Transport]. One goroutine reads every message and routes
// it without ever blocking: replies go to the waiting call by id, events go
// to subscriptions by (session id, method). One goroutine writes. Targets are
// reached through flattened sessions ([Conn.Attach]) that share the
// transport. Every command is bounded by a deadline.
package cdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// DefaultTimeout bounds a command whose context has no deadline, unless
// [Options.DefaultTimeout] says otherwise.
const DefaultTimeout = 15 * time.Second

// writeTimeout bounds one write to the transport. A browser that does not
// drain its input for this long is wedged, and the connection is closed.
const writeTimeout = 10 * time.Second

// Options configure a Conn. The zero value and nil mean defaults.
type Options struct {
	// DefaultTimeout bounds commands whose context has no deadline.
	// Zero means DefaultTimeout.
	DefaultTimeout time.Duration
	// Logger receives protocol-level warnings. Nil means slog.Default().
	Logger *slog.Logger
}

// Conn is a CDP connection to one browser.
//
// # Lifetime
//
// A Conn is live from [NewConn] until its transport fails or [Conn.Close] is
// called; then [Conn.Done] is closed, every pending call fails with an error
// matching [ErrDisconnected], and so does every later call.
//
// All methods are safe for concurrent use.
type Conn struct {
	t              Transport
	defaultTimeout time.Duration
	log            *slog.Logger

	nextID atomic.Int64
	writeq chan []byte
	done   chan struct{}

	mu       sync.Mutex
	pending  map[int64]*call          // guarded by mu
	subs     map[subKey][]sink        // guarded by mu
	sessions map[string]*sessionState // guarded by mu; attached sessions by id
	detached detachedSet              // guarded by mu; sessions that detached before they were known
	err      error                    // guarded by mu; why the Conn closed
	browser  *Session
}

type call struct {
	method string
	ch     chan reply // buffered 1: the reader never blocks on it
}

type reply struct {
	result jsonv2.Value
	err    error
}

type subKey struct{ session, method string }

// NewConn starts a connection over t and takes ownership of it.
func NewConn(t Transport, opts *Options) *Conn {
	if opts == nil {
		opts = &Options{}
	}
	c := &Conn{
		t:              t,
		defaultTimeout: opts.DefaultTimeout,
		log:            opts.Logger,
		writeq:         make(chan []byte, 64),
		done:           make(chan struct{}),
		pending:        make(map[int64]*call),
		subs:           make(map[subKey][]sink),
		sessions:       make(map[string]*sessionState),
	}
	if c.defaultTimeout <= 0 {
		c.defaultTimeout = DefaultTimeout
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.browser = &Session{conn: c, state: &sessionState{done: make(chan struct{})}}
	go c.readLoop()
	go c.writeLoop()
	return c
}

// Browser returns the browser-level session (no session id), on which
// Target.* and Browser.* commands run.
func (c *Conn) Browser() *Session { return c.browser }

// Done is closed when the connection is closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection closed, or nil while it is live.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the transport and fails every pending call. It is safe to
// call more than once.
func (c *Conn) Close() error {
	c.fail(errors.New("connection closed"))
	return nil
}

// CloseWith closes the connection like Close, with cause as the reason that
// pending and later calls report (a [DisconnectedError] unwrapping to it).
func (c *Conn) CloseWith(cause error) {
	c.fail(cause)
}

// fail closes the connection once, with cause as the reason.
func (c *Conn) fail(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = cause
	pending := c.pending
	c.pending = nil
	subs := c.subs
	c.subs = nil
	sessions := c.sessions
	c.sessions = nil
	close(c.done)
	c.mu.Unlock()

	c.t.Close()
	for _, cl := range pending {
		cl.ch <- reply{err: &DisconnectedError{Method: cl.method, Cause: cause}}
	}
	for _, list := range subs {
		for _, s := range list {
			s.finish()
		}
	}
	for _, st := range sessions {
		st.close()
	}
	c.browser.state.close()
}

// call runs one command on the session id and decodes its result into
// result, which may be nil.
func (c *Conn) call(ctx context.Context, st *sessionState, sessionID, method string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.defaultTimeout)
		defer cancel()
	}
	start := time.Now()
	if ctx.Err() != nil {
		return ctxError(ctx, method, 0)
	}
	id := c.nextID.Add(1)
	msg, err := encodeCommand(id, sessionID, method, params)
	if err != nil {
		return fmt.Errorf("cdp: %s: encoding params: %w", method, err)
	}

	cl := &call{method: method, ch: make(chan reply, 1)}
	c.mu.Lock()
	if c.err != nil {
		cause := c.err
		c.mu.Unlock()
		return &DisconnectedError{Method: method, Cause: cause}
	}
	if st.isClosed() {
		c.mu.Unlock()
		return &SessionClosedError{Method: method, SessionID: sessionID}
	}
	c.pending[id] = cl
	st.addPending(id)
	c.mu.Unlock()

	select {
	case c.writeq <- msg:
	case r := <-cl.ch: // closed before we could send
		return r.err
	case <-ctx.Done():
		c.forget(st, id)
		return ctxError(ctx, method, time.Since(start))
	}

	select {
	case r := <-cl.ch:
		if r.err != nil {
			return r.err
		}
		if result != nil && len(r.result) > 0 {
			if err := jsonv2.Unmarshal(r.result, result); err != nil {
				return fmt.Errorf("cdp: %s: decoding result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(st, id)
		return ctxError(ctx, method, time.Since(start))
	}
}

// forget drops a pending call whose caller gave up; its late reply, if any,
// is discarded by the reader.
func (c *Conn) forget(st *sessionState, id int64) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	st.removePending(id)
	c.mu.Unlock()
}

func ctxError(ctx context.Context, method string, took time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Method: method, After: took}
	}
	return fmt.Errorf("cdp: %s: %w", method, ctx.Err())
}

func (c *Conn) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case msg := <-c.writeq:
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			err := c.t.WriteMessage(ctx, msg)
			cancel()
			if err != nil {
				c.fail(err)
				return
			}
		}
	}
}

func (c *Conn) readLoop() {
	for {
		raw, err := c.t.ReadMessage()
		if err != nil {
			c.fail(err)
			return
		}
		var m incoming
		if err := jsonv2.Unmarshal(raw, &m); err != nil {
			c.log.Warn("cdp: dropping undecodable message", "err", err, "bytes", len(raw))
			continue
		}
		if m.ID != 0 {
			c.deliverReply(&m)
			continue
		}
		if m.Method == "" {
			continue
		}
		c.deliverEvent(&m)
	}
}

func (c *Conn) deliverReply(m *incoming) {
	c.mu.Lock()
	cl := c.pending[m.ID]
	delete(c.pending, m.ID)
	if st := c.stateLocked(m.SessionID); st != nil {
		st.removePending(m.ID)
	}
	c.mu.Unlock()
	if cl == nil {
		return // the caller gave up; drop the late reply
	}
	if m.Error != nil {
		cl.ch <- reply{err: &ProtocolError{Method: cl.method, Code: m.Error.Code, Message: m.Error.Message}}
		return
	}
	cl.ch <- reply{result: m.Result}
}

func (c *Conn) deliverEvent(m *incoming) {
	c.mu.Lock()
	for _, s := range c.subs[subKey{m.SessionID, m.Method}] {
		s.push(Event{Method: m.Method, Params: m.Params})
	}
	c.mu.Unlock()
	if m.Method == "Target.detachedFromTarget" {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if jsonv2.Unmarshal(m.Params, &p) == nil && p.SessionID != "" {
			c.closeSession(p.SessionID)
		}
	}
}

// stateLocked returns the state of an attached session. c.mu must be held.
func (c *Conn) stateLocked(id string) *sessionState {
	if id == "" {
		return c.browser.state
	}
	return c.sessions[id]
}

// closeSession fails the pending calls of a detached session and ends its
// subscriptions.
func (c *Conn) closeSession(id string) {
	c.mu.Lock()
	st := c.sessions[id]
	delete(c.sessions, id)
	if st == nil {
		// Not handed out yet (Attach's reply may trail the detach): remember
		// it so the session is born closed.
		c.detached.add(id)
	}
	var failed []*call
	if st != nil {
		// Closed under c.mu, where call and subscribe check it, so that
		// none can register on the session after the sweep below.
		st.close()
		for pid := range st.pending {
			if cl := c.pending[pid]; cl != nil {
				failed = append(failed, cl)
				delete(c.pending, pid)
			}
		}
	}
	var ended []sink
	for k, list := range c.subs {
		if k.session == id {
			ended = append(ended, list...)
			delete(c.subs, k)
		}
	}
	c.mu.Unlock()
	for _, cl := range failed {
		cl.ch <- reply{err: &SessionClosedError{Method: cl.method, SessionID: id}}
	}
	for _, s := range ended {
		s.finish()
	}
}

// subscribe registers s for each of methods on the session, and returns a
// func that unregisters it and ends it.
func (c *Conn) subscribe(st *sessionState, session string, s sink, methods ...string) func() {
	c.mu.Lock()
	if c.err != nil || st.isClosed() {
		c.mu.Unlock()
		s.finish()
		return s.cancel
	}
	for _, m := range methods {
		k := subKey{session, m}
		c.subs[k] = append(c.subs[k], s)
	}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		for _, m := range methods {
			c.unsubscribeLocked(subKey{session, m}, s)
		}
		c.mu.Unlock()
		s.cancel()
	}
}

// unsubscribeLocked removes s from k's list. c.mu must be held.
func (c *Conn) unsubscribeLocked(k subKey, s sink) {
	if c.subs == nil {
		return
	}
	list := c.subs[k]
	for i, x := range list {
		if x == s {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(c.subs, k)
	} else {
		c.subs[k] = list
	}
}

// detachedSet remembers the most recent detached session ids, bounded.
type detachedSet struct {
	ids  map[string]bool
	ring []string
	next int
}

const maxDetached = 1024

func (d *detachedSet) add(id string) {
	if d.ids == nil {
		d.ids = make(map[string]bool)
		d.ring = make([]string, maxDetached)
	}
	if old := d.ring[d.next]; old != "" {
		delete(d.ids, old)
	}
	d.ring[d.next] = id
	d.next = (d.next + 1) % maxDetached
	d.ids[id] = true
}

func (d *detachedSet) has(id string) bool { return d.ids[id] }

// incoming is the envelope of every message the browser sends.
type incoming struct {
	ID        int64        `json:"id,omitzero"`
	SessionID string       `json:"sessionId,omitzero"`
	Method    string       `json:"method,omitzero"`
	Params    jsonv2.Value `json:"params,omitzero"`
	Result    jsonv2.Value `json:"result,omitzero"`
	Error     *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitzero"`
}

type outgoing struct {
	ID        int64        `json:"id"`
	SessionID string       `json:"sessionId,omitzero"`
	Method    string       `json:"method"`
	Params    jsonv2.Value `json:"params,omitzero"`
}

func encodeCommand(id int64, sessionID, method string, params any) ([]byte, error) {
	var p jsonv2.Value
	if params != nil {
		b, err := jsonv2.Marshal(params)
		if err != nil {
			return nil, err
		}
		p = b
	}
	return jsonv2.Marshal(outgoing{ID: id, SessionID: sessionID, Method: method, Params: p})
}
