// Package bidi is cdpkit's connection to a browser over W3C WebDriver BiDi
// (Firefox). It knows nothing about tools or MCP.
//
// A [Conn] runs on the same core as the CDP connection ([rpc.Core]): one
// transport (a websocket here), one goroutine that reads every message and
// routes it without blocking (replies to the waiting call by id, events to
// the handlers registered for their method), one that writes, and a
// deadline on every command.
package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cdpkit/cdpkit/internal/rpc"
)

// DefaultTimeout bounds a command whose context has no deadline, unless
// [Options.DefaultTimeout] says otherwise.
const DefaultTimeout = rpc.DefaultTimeout

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
	// core owns the transport, ids, pending calls and deadlines; its Mu
	// also guards the fields below that say so.
	core *rpc.Core
	log  *slog.Logger

	handlers map[string][]*handler // guarded by core.Mu; by event method
	version  string                // guarded by core.Mu; from session.new
}

type handler struct{ fn func(Event) }

// NewConn starts a connection over t and takes ownership of it.
func NewConn(t rpc.Transport, o *Options) *Conn {
	if o == nil {
		o = &Options{}
	}
	c := &Conn{log: o.Logger, handlers: make(map[string][]*handler)}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.core = rpc.New(t, rpc.Options{
		Name:           "bidi",
		DefaultTimeout: o.DefaultTimeout,
		Timeout: func(method string, took time.Duration) error {
			return &TimeoutError{Method: method, After: took}
		},
		Disconnected: func(method string, cause error) error {
			return &DisconnectedError{Method: method, Cause: cause}
		},
		Handle: c.handle,
		Closing: func() func() {
			c.handlers = nil
			return nil
		},
	})
	c.core.Start()
	return c
}

// Done is closed when the connection is closed.
func (c *Conn) Done() <-chan struct{} { return c.core.Done() }

// Err returns why the connection closed, or nil while it is live.
func (c *Conn) Err() error { return c.core.Err() }

// Close closes the transport and fails every pending call. It is safe to
// call more than once.
func (c *Conn) Close() error {
	c.CloseWith(errors.New("connection closed"))
	return nil
}

// CloseWith closes the connection like Close, with cause as the reason that
// pending and later calls report (a [DisconnectedError] unwrapping to it).
func (c *Conn) CloseWith(cause error) { c.core.Close(cause) }

// On calls fn, on the reader goroutine, for every event of the methods
// named (such as "browsingContext.userPromptOpened"), until off is called
// or the connection closes. fn must not block: it records the event (under
// a short lock, or with a non-blocking send) and returns. Receiving the
// events at all needs a session.subscribe command for them.
func (c *Conn) On(fn func(Event), methods ...string) (off func()) {
	h := &handler{fn: fn}
	c.core.Mu.Lock()
	if c.core.ErrLocked() == nil {
		for _, m := range methods {
			c.handlers[m] = append(c.handlers[m], h)
		}
	}
	c.core.Mu.Unlock()
	return func() {
		c.core.Mu.Lock()
		defer c.core.Mu.Unlock()
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
	if params == nil {
		params = struct{}{} // BiDi wants an object, even an empty one
	}
	raw, err := c.core.Call(ctx, method, &command{method: method, params: params})
	if err != nil {
		return err
	}
	if result != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("bidi: %s: decoding result: %w", method, err)
		}
	}
	return nil
}

// command is one BiDi command as the core sees it.
type command struct {
	method string
	params any
}

func (cmd *command) Encode(id int64) ([]byte, error) {
	msg, err := json.Marshal(outgoing{ID: id, Method: cmd.method, Params: cmd.params})
	if err != nil {
		return nil, fmt.Errorf("bidi: %s: encoding params: %w", cmd.method, err)
	}
	return msg, nil
}

func (cmd *command) Register(int64) error { return nil }
func (cmd *command) Forget(int64)         {}

// handle routes one message on the core's reader goroutine.
func (c *Conn) handle(raw []byte) {
	var m incoming
	if err := json.Unmarshal(raw, &m); err != nil {
		c.log.Warn("bidi: dropping undecodable message", "err", err, "bytes", len(raw))
		return
	}
	switch m.Type {
	case "success", "error":
		c.deliverReply(&m)
	case "event":
		c.deliverEvent(&m)
	}
}

func (c *Conn) deliverReply(m *incoming) {
	if m.ID == nil {
		// An error the browser could not tie to a command (one it could
		// not parse): nothing waits for it.
		c.log.Warn("bidi: error without a command id", "code", m.Error, "message", m.Message)
		return
	}
	c.core.Mu.Lock()
	cl := c.core.TakeLocked(*m.ID)
	c.core.Mu.Unlock()
	if cl == nil {
		return // the caller gave up; drop the late reply
	}
	if m.Type == "error" {
		cl.Resolve(nil, &CommandError{Method: cl.Method, Code: m.Error, Message: m.Message})
		return
	}
	cl.Resolve(m.Result, nil)
}

func (c *Conn) deliverEvent(m *incoming) {
	c.core.Mu.Lock()
	list := c.handlers[m.Method]
	c.core.Mu.Unlock()
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
