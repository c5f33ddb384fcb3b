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
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/cdpkit/cdpkit/internal/rpc"
)

// DefaultTimeout bounds a command whose context has no deadline, unless
// [Options.DefaultTimeout] says otherwise.
const DefaultTimeout = rpc.DefaultTimeout

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
	// core owns the transport, ids, pending calls and deadlines; its Mu
	// also guards the fields below that say so.
	core *rpc.Core
	log  *slog.Logger

	subs     map[subKey][]sink        // guarded by core.Mu
	sessions map[string]*sessionState // guarded by core.Mu; attached sessions by id
	detached detachedSet              // guarded by core.Mu; sessions that detached before they were known
	browser  *Session
}

type subKey struct{ session, method string }

// NewConn starts a connection over t and takes ownership of it.
func NewConn(t Transport, opts *Options) *Conn {
	if opts == nil {
		opts = &Options{}
	}
	c := &Conn{
		log:      opts.Logger,
		subs:     make(map[subKey][]sink),
		sessions: make(map[string]*sessionState),
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.core = rpc.New(t, rpc.Options{
		Name:           "cdp",
		DefaultTimeout: opts.DefaultTimeout,
		Timeout: func(method string, took time.Duration) error {
			return &TimeoutError{Method: method, After: took}
		},
		Disconnected: func(method string, cause error) error {
			return &DisconnectedError{Method: method, Cause: cause}
		},
		Handle:  c.handle,
		Closing: c.closing,
	})
	c.browser = &Session{conn: c, state: &sessionState{done: make(chan struct{})}}
	c.core.Start()
	return c
}

// Browser returns the browser-level session (no session id), on which
// Target.* and Browser.* commands run.
func (c *Conn) Browser() *Session { return c.browser }

// Done is closed when the connection is closed.
func (c *Conn) Done() <-chan struct{} { return c.core.Done() }

// Err returns why the connection closed, or nil while it is live.
func (c *Conn) Err() error { return c.core.Err() }

// Close closes the transport and fails every pending call. It is safe to
// call more than once.
func (c *Conn) Close() error {
	c.core.Close(errors.New("connection closed"))
	return nil
}

// CloseWith closes the connection like Close, with cause as the reason that
// pending and later calls report (a [DisconnectedError] unwrapping to it).
func (c *Conn) CloseWith(cause error) {
	c.core.Close(cause)
}

// closing drops the subscriptions and sessions as the core closes (under
// core.Mu), and returns what ends them once the pending calls have failed.
func (c *Conn) closing() func() {
	subs := c.subs
	c.subs = nil
	sessions := c.sessions
	c.sessions = nil
	return func() {
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
}

// call runs one command on the session id and decodes its result into
// result, which may be nil.
func (c *Conn) call(ctx context.Context, st *sessionState, sessionID, method string, params, result any) error {
	raw, err := c.core.Call(ctx, method, &command{st: st, sessionID: sessionID, method: method, params: params})
	if err != nil {
		return err
	}
	if result != nil && len(raw) > 0 {
		if err := jsonv2.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("cdp: %s: decoding result: %w", method, err)
		}
	}
	return nil
}

// command is one CDP command as the core sees it.
type command struct {
	st                *sessionState
	sessionID, method string
	params            any
}

func (cmd *command) Encode(id int64) ([]byte, error) {
	msg, err := encodeCommand(id, cmd.sessionID, cmd.method, cmd.params)
	if err != nil {
		return nil, fmt.Errorf("cdp: %s: encoding params: %w", cmd.method, err)
	}
	return msg, nil
}

// Register refuses a command on a closed session; core.Mu is held.
func (cmd *command) Register(id int64) error {
	if cmd.st.isClosed() {
		return &SessionClosedError{Method: cmd.method, SessionID: cmd.sessionID}
	}
	cmd.st.addPending(id)
	return nil
}

// Forget drops a call its caller gave up on; core.Mu is held.
func (cmd *command) Forget(id int64) { cmd.st.removePending(id) }

// handle routes one message on the core's reader goroutine.
func (c *Conn) handle(raw []byte) {
	var m incoming
	if err := jsonv2.Unmarshal(raw, &m); err != nil {
		c.log.Warn("cdp: dropping undecodable message", "err", err, "bytes", len(raw))
		return
	}
	if m.ID != 0 {
		c.deliverReply(&m)
		return
	}
	if m.Method == "" {
		return
	}
	c.deliverEvent(&m)
}

func (c *Conn) deliverReply(m *incoming) {
	c.core.Mu.Lock()
	cl := c.core.TakeLocked(m.ID)
	if st := c.stateLocked(m.SessionID); st != nil {
		st.removePending(m.ID)
	}
	c.core.Mu.Unlock()
	if cl == nil {
		return // the caller gave up; drop the late reply
	}
	if m.Error != nil {
		cl.Resolve(nil, &ProtocolError{Method: cl.Method, Code: m.Error.Code, Message: m.Error.Message})
		return
	}
	cl.Resolve(m.Result, nil)
}

func (c *Conn) deliverEvent(m *incoming) {
	c.core.Mu.Lock()
	for _, s := range c.subs[subKey{m.SessionID, m.Method}] {
		s.push(Event{Method: m.Method, Params: m.Params})
	}
	c.core.Mu.Unlock()
	if m.Method == "Target.detachedFromTarget" {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if jsonv2.Unmarshal(m.Params, &p) == nil && p.SessionID != "" {
			c.closeSession(p.SessionID)
		}
	}
}

// stateLocked returns the state of an attached session. core.Mu must be
// held.
func (c *Conn) stateLocked(id string) *sessionState {
	if id == "" {
		return c.browser.state
	}
	return c.sessions[id]
}

// closeSession fails the pending calls of a detached session and ends its
// subscriptions.
func (c *Conn) closeSession(id string) {
	c.core.Mu.Lock()
	st := c.sessions[id]
	delete(c.sessions, id)
	if st == nil {
		// Not handed out yet (Attach's reply may trail the detach): remember
		// it so the session is born closed.
		c.detached.add(id)
	}
	var failed []*rpc.Call
	if st != nil {
		// Closed under core.Mu, where call and subscribe check it, so
		// that none can register on the session after the sweep below.
		st.close()
		for pid := range st.pending {
			if cl := c.core.TakeLocked(pid); cl != nil {
				failed = append(failed, cl)
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
	c.core.Mu.Unlock()
	for _, cl := range failed {
		cl.Resolve(nil, &SessionClosedError{Method: cl.Method, SessionID: id})
	}
	for _, s := range ended {
		s.finish()
	}
}

// subscribe registers s for each of methods on the session, and returns a
// func that unregisters it and ends it.
func (c *Conn) subscribe(st *sessionState, session string, s sink, methods ...string) func() {
	c.core.Mu.Lock()
	if c.core.ErrLocked() != nil || st.isClosed() {
		c.core.Mu.Unlock()
		s.finish()
		return s.cancel
	}
	for _, m := range methods {
		k := subKey{session, m}
		c.subs[k] = append(c.subs[k], s)
	}
	c.core.Mu.Unlock()
	return func() {
		c.core.Mu.Lock()
		for _, m := range methods {
			c.unsubscribeLocked(subKey{session, m}, s)
		}
		c.core.Mu.Unlock()
		s.cancel()
	}
}

// unsubscribeLocked removes s from k's list. core.Mu must be held.
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
