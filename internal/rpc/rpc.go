// Package rpc is the protocol-neutral core of cdpkit's browser
// connections: the Chrome DevTools Protocol (internal/cdp) and WebDriver
// BiDi (internal/bidi) both send commands with an integer id over one
// [Transport] and get replies by that id, interleaved with events.
//
// A [Core] owns the transport, allocates request ids, keeps the calls that
// wait for a reply, bounds each by a deadline, writes on one goroutine and
// reads on another. What a message means (which reply, which event) is
// the protocol's: the Core hands every message it reads to the protocol's
// handler, and the protocol resolves the waiting call by id.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds a command whose context has no deadline, unless
// [Options.DefaultTimeout] says otherwise.
const DefaultTimeout = 15 * time.Second

// writeTimeout bounds one write to the transport. A browser that does not
// drain its input for this long is wedged, and the connection is closed.
const writeTimeout = 10 * time.Second

// A Transport moves whole messages between cdpkit and a browser.
//
// # Concurrency
//
// [Core] calls ReadMessage from exactly one goroutine and WriteMessage from
// exactly one other goroutine, so implementations need not lock either side.
// Close may be called at any time from any goroutine, more than once; it must
// unblock a pending ReadMessage and WriteMessage.
type Transport interface {
	// ReadMessage blocks until the next message arrives and returns it. It
	// returns an error once the transport is closed or broken; after that
	// every call returns an error.
	ReadMessage() ([]byte, error)

	// WriteMessage sends one message. The context bounds only this write.
	// A write that cannot complete in time leaves the transport in an
	// unknown state, so Core closes it.
	WriteMessage(ctx context.Context, msg []byte) error

	// Close releases the transport.
	Close() error
}

// Options configure a Core. Name and the error constructors are required.
type Options struct {
	// Name prefixes the errors the Core makes itself, such as "cdp".
	Name string
	// DefaultTimeout bounds commands whose context has no deadline. Zero
	// means DefaultTimeout.
	DefaultTimeout time.Duration
	// Timeout makes the error of a command that had no reply within its
	// deadline, after waiting took.
	Timeout func(method string, took time.Duration) error
	// Disconnected makes the error of a command that failed because the
	// connection closed, for cause.
	Disconnected func(method string, cause error) error
	// Handle is called on the reader goroutine with every message read. It
	// must not block: it resolves a call ([Core.TakeLocked], [Call.Resolve])
	// or hands an event on.
	Handle func(msg []byte)
	// Closing is called once, with Mu held, as the Core closes: the
	// protocol drops what it keeps under Mu (its subscriptions, its
	// sessions) and returns what to do with them after Mu is released
	// (end them), or nil.
	Closing func() (after func())
}

// Core is the shared half of a connection: ids, pending calls, deadlines,
// the reader and the writer.
//
// # Lifetime
//
// A Core is live from [New] until its transport fails or [Core.Close] is
// called; then [Core.Done] is closed, every pending call fails with the
// protocol's disconnected error, and so does every later call.
//
// All methods are safe for concurrent use.
type Core struct {
	t    Transport
	opts Options

	nextID atomic.Int64
	writeq chan []byte
	done   chan struct{}

	// Mu guards pending and err, and whatever a protocol must change in
	// the same step as a call is registered, answered or swept (its
	// sessions, its subscriptions).
	Mu      sync.Mutex
	pending map[int64]*Call // guarded by Mu
	err     error           // guarded by Mu; why the Core closed
}

// Call is one command waiting for its reply.
type Call struct {
	// Method is the command's method, for errors.
	Method string
	ch     chan reply // buffered 1: Resolve never blocks
	cap    StringCap  // how the reply's strings are cut (strcap.go); zero: not at all
}

type reply struct {
	result []byte
	err    error
}

// Resolve hands the call its reply: the raw result, or an error. Call it
// once, on a call taken out of the pending set ([Core.TakeLocked]); it
// does not block.
func (cl *Call) Resolve(result []byte, err error) { cl.ch <- reply{result, err} }

// New returns a Core over t, which it owns from now on. Its reader and
// writer start with [Core.Start], once the protocol can handle messages.
func New(t Transport, o Options) *Core {
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = DefaultTimeout
	}
	c := &Core{
		t:       t,
		opts:    o,
		writeq:  make(chan []byte, 64),
		done:    make(chan struct{}),
		pending: make(map[int64]*Call),
	}
	return c
}

// Start starts the reader and the writer. Call it once.
func (c *Core) Start() {
	go c.readLoop()
	go c.writeLoop()
}

// Done is closed when the Core is closed.
func (c *Core) Done() <-chan struct{} { return c.done }

// Err returns why the Core closed, or nil while it is live.
func (c *Core) Err() error {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	return c.err
}

// ErrLocked is Err for a caller holding Mu.
func (c *Core) ErrLocked() error { return c.err }

// Close closes the Core once, with cause as the reason pending and later
// calls report: it runs Options.Closing under Mu, closes the transport,
// fails every pending call, then runs what Closing returned.
func (c *Core) Close(cause error) {
	c.Mu.Lock()
	if c.err != nil {
		c.Mu.Unlock()
		return
	}
	c.err = cause
	pending := c.pending
	c.pending = nil
	close(c.done)
	var after func()
	if c.opts.Closing != nil {
		after = c.opts.Closing()
	}
	c.Mu.Unlock()

	c.t.Close()
	for _, cl := range pending {
		cl.Resolve(nil, c.opts.Disconnected(cl.Method, cause))
	}
	if after != nil {
		after()
	}
}

// Request is what a protocol tells [Core.Call] about one command.
type Request interface {
	// Encode returns the message for the command with request id id. Its
	// error is returned as it is.
	Encode(id int64) ([]byte, error)
	// Register is called with Mu held on a live Core before the call
	// becomes pending: an error fails the call before it is sent.
	Register(id int64) error
	// Forget is called with Mu held when the caller gives up on the call
	// before its reply.
	Forget(id int64)
}

// Call sends one command and waits for its raw result. ctx bounds the
// wait; without a deadline the default timeout does. A command the caller
// gave up on may still run in the browser; its late reply is discarded.
func (c *Core) Call(ctx context.Context, method string, req Request) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.DefaultTimeout)
		defer cancel()
	}
	start := time.Now()
	if ctx.Err() != nil {
		return nil, c.ctxError(ctx, method, 0)
	}
	id := c.nextID.Add(1)
	msg, err := req.Encode(id)
	if err != nil {
		return nil, err
	}

	cl := &Call{Method: method, ch: make(chan reply, 1)}
	cl.cap, _ = ctx.Value(capKey{}).(StringCap)
	c.Mu.Lock()
	if c.err != nil {
		cause := c.err
		c.Mu.Unlock()
		return nil, c.opts.Disconnected(method, cause)
	}
	if err := req.Register(id); err != nil {
		c.Mu.Unlock()
		return nil, err
	}
	c.pending[id] = cl
	c.Mu.Unlock()

	select {
	case c.writeq <- msg:
		if fn, ok := ctx.Value(queuedKey{}).(func()); ok {
			fn()
		}
	case r := <-cl.ch: // closed before we could send
		return nil, r.err
	case <-ctx.Done():
		c.forget(id, req)
		return nil, c.ctxError(ctx, method, time.Since(start))
	}

	select {
	case r := <-cl.ch:
		return r.result, r.err
	case <-ctx.Done():
		c.forget(id, req)
		return nil, c.ctxError(ctx, method, time.Since(start))
	}
}

type queuedKey struct{}

// WithQueued returns a context whose calls run fn as their command is
// queued for writing, before its reply. The Core writes commands in the
// order they are queued, so a command sent after fn has run goes out
// after this one.
func WithQueued(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, queuedKey{}, fn)
}

// forget drops a pending call whose caller gave up; its late reply, if
// any, finds no call.
func (c *Core) forget(id int64, req Request) {
	c.Mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	req.Forget(id)
	c.Mu.Unlock()
}

// TakeLocked removes the pending call with id and returns it, or nil if
// none waits (its caller gave up, or the Core closed). Mu must be held.
func (c *Core) TakeLocked(id int64) *Call {
	cl := c.pending[id]
	if cl != nil {
		delete(c.pending, id)
	}
	return cl
}

func (c *Core) ctxError(ctx context.Context, method string, took time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return c.opts.Timeout(method, took)
	}
	return fmt.Errorf("%s: %s: %w", c.opts.Name, method, ctx.Err())
}

func (c *Core) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case msg := <-c.writeq:
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			err := c.t.WriteMessage(ctx, msg)
			cancel()
			if err != nil {
				c.Close(err)
				return
			}
		}
	}
}

func (c *Core) readLoop() {
	for {
		raw, err := c.t.ReadMessage()
		if err != nil {
			c.Close(err)
			return
		}
		big := len(raw) >= bigMessage
		if len(raw) > capFrom {
			raw = c.capReply(raw)
		}
		c.opts.Handle(raw)
		raw = nil
		if big {
			FreeOSMemory()
		}
	}
}
