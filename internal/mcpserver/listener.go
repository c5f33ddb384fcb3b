package mcpserver

import (
	"io"
	"net"
	"sync"
	"time"
)

// Defaults for LimitListener in cdpkit serve.
const (
	DefaultMaxConns        = 256
	DefaultMaxConnsPerAddr = 64
)

// LimitListener returns a listener that holds at most total connections
// open at once, and at most perAddr from one client address. A connection
// over a cap is answered "503 Service Unavailable" and closed at once, so
// that slow or idle clients cannot exhaust file descriptors.
func LimitListener(ln net.Listener, perAddr, total int) net.Listener {
	return &limitListener{Listener: ln, perAddr: perAddr, total: total, byAddr: map[string]int{}, refusing: make(chan struct{}, 16)}
}

type limitListener struct {
	net.Listener
	perAddr, total int
	refusing       chan struct{} // bounds the refusals being written

	mu     sync.Mutex
	n      int            // guarded by mu
	byAddr map[string]int // guarded by mu
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := c.RemoteAddr().String()
		if h, _, err := net.SplitHostPort(addr); err == nil {
			addr = h
		}
		l.mu.Lock()
		if l.n >= l.total || l.byAddr[addr] >= l.perAddr {
			l.mu.Unlock()
			l.refuse(c)
			continue
		}
		l.n++
		l.byAddr[addr]++
		l.mu.Unlock()
		return &limitConn{Conn: c, release: func() { l.release(addr) }}, nil
	}
}

func (l *limitListener) release(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n--
	if l.byAddr[addr]--; l.byAddr[addr] <= 0 {
		delete(l.byAddr, addr)
	}
}

const refusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 21\r\n\r\ntoo many connections\n"

// refuse answers 503 and closes c, in the background and bounded; under a
// flood of refusals it just closes.
func (l *limitListener) refuse(c net.Conn) {
	select {
	case l.refusing <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		io.WriteString(c, refusal)
		// Half-close and read what the client sent, so the close does not
		// reset the connection before the client reads the answer.
		if tc, ok := c.(interface{ CloseWrite() error }); ok {
			tc.CloseWrite()
		}
		io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
