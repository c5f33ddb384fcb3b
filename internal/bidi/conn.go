// Package bidi is cdpkit's connection to a browser over W3C WebDriver BiDi
// (Firefox). It knows nothing about tools or MCP.
//
// A [Conn] owns one transport, the same [cdp.Transport] the CDP connection
// uses (a websocket here). One goroutine reads every message and routes it
// without blocking: replies go to the waiting call by id, events to the
// handlers registered for their method. One goroutine writes. Every
// command is bounded by a deadline.
package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// DefaultTimeout bounds a command whose context has no deadline, unless
// [Options.DefaultTimeout] says otherwise.
const DefaultTimeout = 15 * time.Second

// writeTimeout bounds one write to the transport; a browser that does not
// drain its input for this long is wedged, and the connection is closed.
const writeTimeout = 10 * time.Second

// Options configure a Conn. The zero value and nil mean defaults.
type Options struct {
	// DefaultTimeout bounds commands whose context has no deadline. Zero
	// means DefaultTimeout.
	DefaultTimeout time.Duration
	// Logger receives protocol-level warnings. Nil means slog.Default().
	Logger *slog.Logger
}

// Event is one BiDi event.
type Event struct {
	Method string
	Params json.RawMessage
}

// Conn is a WebDriver BiDi connection to one browser.
//
// # Lifetime
//
// A Conn is live from [NewConn] until its transport fails or [Conn.Close]
// is called; then [Conn.Done] is closed, every pending call fails with an
// error matching [ErrDisconnected], and so does every later call.
//
// All methods are safe for concurrent use.
type Conn struct {
	t              cdp.Transport
	defaultTimeout time.Duration
	log            *slog.Logger

	nextID atomic.Int64
	writeq chan []byte
	done   chan struct{}

	mu       sync.Mutex
	pending  map[int64]*call       // guarded by mu
	handlers map[string][]*handler // guarded by mu; by event method
	err      error                 // guarded by mu; why the Conn closed
	version  string                // guarded by mu; from session.new
}

type call struct {
	method string
	ch     chan reply // buffered 1: the reader never blocks on it
}

type reply struct {
	result json.RawMessage
	err    error
}

type handler struct{ fn func(Event) }

// NewConn starts a connection over t and takes ownership of it.
func NewConn(t cdp.Transport, o *Options) *Conn {
	if o == nil {
		o = &Options{}
	}
	c := &Conn{
		t:              t,
		defaultTimeout: o.DefaultTimeout,
		log:            o.Logger,
		writeq:         make(chan []byte, 64),
		done:           make(chan struct{}),
		pending:        make(map[int64]*call),
		handlers:       make(map[string][]*handler),
	}
	if c.defaultTimeout <= 0 {
		c.defaultTimeout = DefaultTimeout
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	go c.readLoop()
	go c.writeLoop()
	return c
}

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
	c.CloseWith(errors.New("connection closed"))
	return nil
}

// CloseWith closes the connection like Close, with cause as the reason that
// pending and later calls report (a [DisconnectedError] unwrapping to it).
func (c *Conn) CloseWith(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = cause
	pending := c.pending
	c.pending = nil
	c.handlers = nil
	close(c.done)
	c.mu.Unlock()

	c.t.Close()
	for _, cl := range pending {
		cl.ch <- reply{err: &DisconnectedError{Method: cl.method, Cause: cause}}
	}
}

// On calls fn, on the reader goroutine, for every event of the methods
// named (such as "browsingContext.userPromptOpened"), until off is called
// or the connection closes. fn must not block: it records the event (under
// a short lock, or with a non-blocking send) and returns. Receiving the
// events at all needs a session.subscribe command for them.
func (c *Conn) On(fn func(Event), methods ...string) (off func()) {
	h := &handler{fn: fn}
	c.mu.Lock()
	if c.err == nil {
		for _, m := range methods {
			c.handlers[m] = append(c.handlers[m], h)
		}
	}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, m := range methods {
			list := c.handlers[m]
			for i, x := range list {
				if x == h {
					c.handlers[m] = append(list[:i:i], list[i+1:]...)
					break
				}
			}
			if len(c.handlers[m]) == 0 {
				delete(c.handlers, m)
			}
		}
	}
}

// Call runs one command and decodes its result into result, which may be
// nil. ctx bounds the wait for the reply; without a deadline the Conn's
// default timeout does. A command the caller gave up on may still run in
// the browser; its late reply is discarded.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
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
	if params == nil {
		params = struct{}{} // BiDi wants an object, even an empty one
	}
	msg, err := json.Marshal(outgoing{ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("bidi: %s: encoding params: %w", method, err)
	}
	cl := &call{method: method, ch: make(chan reply, 1)}
	c.mu.Lock()
	if c.err != nil {
		cause := c.err
		c.mu.Unlock()
		return &DisconnectedError{Method: method, Cause: cause}
	}
	c.pending[id] = cl
	c.mu.Unlock()

	select {
	case c.writeq <- msg:
	case r := <-cl.ch: // closed before we could send
		return r.err
	case <-ctx.Done():
		c.forget(id)
		return ctxError(ctx, method, time.Since(start))
	}
	select {
	case r := <-cl.ch:
		if r.err != nil {
			return r.err
		}
		if result != nil && len(r.result) > 0 {
			if err := json.Unmarshal(r.result, result); err != nil {
				return fmt.Errorf("bidi: %s: decoding result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return ctxError(ctx, method, time.Since(start))
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
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
				c.CloseWith(err)
				return
			}
		}
	}
}

func (c *Conn) readLoop() {
	for {
		raw, err := c.t.ReadMessage()
		if err != nil {
			c.CloseWith(err)
			return
		}
		var m incoming
		if err := json.Unmarshal(raw, &m); err != nil {
			c.log.Warn("bidi: dropping undecodable message", "err", err, "bytes", len(raw))
			continue
		}
		switch m.Type {
		case "success", "error":
			c.deliverReply(&m)
		case "event":
			c.deliverEvent(&m)
		}
	}
}

func (c *Conn) deliverReply(m *incoming) {
	if m.ID == nil {
		// An error the browser could not tie to a command (one it could
		// not parse): nothing waits for it.
		c.log.Warn("bidi: error without a command id", "code", m.Error, "message", m.Message)
		return
	}
	c.mu.Lock()
	cl := c.pending[*m.ID]
	delete(c.pending, *m.ID)
	c.mu.Unlock()
	if cl == nil {
		return // the caller gave up; drop the late reply
	}
	if m.Type == "error" {
		cl.ch <- reply{err: &CommandError{Method: cl.method, Code: m.Error, Message: m.Message}}
		return
	}
	cl.ch <- reply{result: m.Result}
}

func (c *Conn) deliverEvent(m *incoming) {
	c.mu.Lock()
	list := c.handlers[m.Method]
	c.mu.Unlock()
	// list is never changed in place (On and off copy), so reading it
	// outside mu is safe; a handler may call On or off.
	for _, h := range list {
		h.fn(Event{Method: m.Method, Params: m.Params})
	}
}

// incoming is the envelope of every message the browser sends.
type incoming struct {
	Type    string          `json:"type"`
	ID      *int64          `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

type outgoing struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}
