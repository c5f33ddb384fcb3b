package mcpserver

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults for ConnLimits and HTTPOptions.MaxConnsPerSession.
const (
	// DefaultMaxConns bounds the connections that have shown the token.
	// An MCP session holds its event stream and a request or two, so this
	// leaves room for DefaultMaxSessions sessions several times over.
	DefaultMaxConns = 512
	// DefaultMaxUnauthConns bounds the connections that have not (yet)
	// shown the token. A new connection counts here until the handler
	// has read its first request, so a burst of DefaultMaxSessions
	// sessions connecting at once (each opening its event stream and a
	// POST or two on new connections, as clients behind a proxy do) must
	// fit, with room, on a machine too busy to read them promptly: 64
	// closed one of 64 sessions' connections about once in 30 runs under
	// stress-ng, 128 and 256 none in 40.
	DefaultMaxUnauthConns = 4 * DefaultMaxSessions
	// DefaultUnauthTimeout is how long a connection may stay without
	// showing the token.
	DefaultUnauthTimeout = 10 * time.Second
	// DefaultMaxConnsPerSession bounds the requests of one MCP session in
	// progress at once (its event stream included).
	DefaultMaxConnsPerSession = 16
)

// ConnLimits bound the connections LimitListener holds. Zero fields mean
// the defaults.
type ConnLimits struct {
	// MaxConns bounds the connections open at once that have carried a
	// request with the bearer token (cdpkit serve has one token, so this
	// is also the per-token bound). A request that would authenticate one
	// more is answered 503 with LIMIT_REACHED naming --max-conns.
	MaxConns int
	// MaxUnauthConns bounds the connections that have not shown the
	// token. When it is full, a new connection closes the oldest of them:
	// a client with the token sends it at once, so flooding idle sockets
	// cannot keep it out, whatever address either comes from.
	MaxUnauthConns int
	// UnauthTimeout closes a connection that has not shown the token
	// within it.
	UnauthTimeout time.Duration
}

// LimitListener returns a listener that bounds the connections it hands
// out by l: connections are unauthenticated until NewHTTPHandler has seen
// the token on one of their requests, and each kind has its own budget,
// so that slow, idle or token-less clients cannot exhaust file
// descriptors or lock out a client with the token. Nothing is counted per
// client address: behind a reverse proxy every client has one.
//
// The http.Server must set ConnContext to this package's ConnContext, so
// that the handler finds a request's connection.
func LimitListener(ln net.Listener, l ConnLimits) net.Listener {
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	if l.MaxUnauthConns <= 0 {
		l.MaxUnauthConns = DefaultMaxUnauthConns
	}
	if l.UnauthTimeout <= 0 {
		l.UnauthTimeout = DefaultUnauthTimeout
	}
	return &limitListener{Listener: ln, limits: l}
}

type connKey struct{}

// ConnContext is an http.Server ConnContext for a LimitListener: it lets
// the handler promote a request's connection once it has shown the token.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

type limitListener struct {
	net.Listener
	limits ConnLimits

	mu      sync.Mutex
	pending list.List // guarded by mu; the unauthenticated *limitConn, oldest first
	authed  int       // guarded by mu
}

// connState is where a limitConn is counted.
type connState int

const (
	connPending connState = iota // in pending
	connAuthed                   // in authed
	connGone                     // counted nowhere: closed or dropped
)

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: c, ln: l}
	var oldest *limitConn
	l.mu.Lock()
	if l.pending.Len() >= l.limits.MaxUnauthConns {
		oldest = l.pending.Front().Value.(*limitConn)
		oldest.forget()
	}
	lc.elem = l.pending.PushBack(lc)
	lc.timer = time.AfterFunc(l.limits.UnauthTimeout, lc.expire)
	l.mu.Unlock()
	if oldest != nil {
		oldest.Conn.Close()
	}
	return lc, nil
}

// limitConn is a connection counted by its listener until it is closed.
type limitConn struct {
	net.Conn
	ln *limitListener

	state connState     // guarded by ln.mu
	elem  *list.Element // guarded by ln.mu; in ln.pending while connPending
	timer *time.Timer   // guarded by ln.mu; closes a pending conn
}

// forget stops counting c. The caller holds c.ln.mu.
func (c *limitConn) forget() {
	switch c.state {
	case connPending:
		c.ln.pending.Remove(c.elem)
		c.timer.Stop()
	case connAuthed:
		c.ln.authed--
	}
	c.state = connGone
}

// expire closes c if it is still unauthenticated.
func (c *limitConn) expire() {
	c.ln.mu.Lock()
	pending := c.state == connPending
	if pending {
		c.forget()
	}
	c.ln.mu.Unlock()
	if pending {
		c.Conn.Close()
	}
}

// authenticate counts c as a connection that has shown the token; it
// reports false if that would exceed MaxConns.
func (c *limitConn) authenticate() bool {
	c.ln.mu.Lock()
	defer c.ln.mu.Unlock()
	if c.state != connPending {
		return true // already counted, or closed under the request
	}
	if c.ln.authed >= c.ln.limits.MaxConns {
		return false
	}
	c.ln.pending.Remove(c.elem)
	c.timer.Stop()
	c.state = connAuthed
	c.ln.authed++
	return true
}

func (c *limitConn) Close() error {
	c.ln.mu.Lock()
	c.forget()
	c.ln.mu.Unlock()
	return c.Conn.Close()
}

// authenticated promotes r's connection, if it came through a
// LimitListener; it reports false, with the limit that refused it, when
// the connection may not be promoted.
func authenticated(r *http.Request) (ok bool, max int) {
	c, isLimited := r.Context().Value(connKey{}).(*limitConn)
	if !isLimited {
		return true, 0
	}
	return c.authenticate(), c.ln.limits.MaxConns
}
