package mcpserver

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// releaseTimeout bounds closing an ended session's tabs.
const releaseTimeout = 10 * time.Second

// SessionOptions configure [PerSession]. Nil means defaults.
type SessionOptions struct {
	// Isolate gives each session its own browser context: cookies,
	// storage and cache apart from other sessions'.
	Isolate bool
	// MaxTabs bounds the tabs one session has open at once; opening one
	// more fails with LIMIT_REACHED. Zero means no bound.
	MaxTabs int
	// InstanceID, when set, starts every session id, as
	// "<InstanceID>.<random>", so that a reverse proxy in front of several
	// servers can route a session's requests by its Mcp-Session-Id header
	// to the server that holds it. It must be letters, digits and '-'.
	InstanceID string
}

// PerSession returns the server factory for [NewHTTPHandler] that gives
// each MCP session its own tabs, on the least-loaded browser of pool: a
// server whose tools run with a copy of that member's env scoped to the
// session ([tools.Env.Scoped]). The session sees, resolves and opens only
// its own tabs (a tab id of another session matches nothing), gets a tab
// on first use, and its tabs (and, with o.Isolate, its browser context)
// are closed when the session ends: closed by the client, or expired
// (HTTPOptions.SessionTimeout).
//
// Session ids only route requests; they are not credentials, and
// NewHTTPHandler checks the bearer token on every request.
func PerSession(pool *Pool, version string, list []tools.Tool, o *SessionOptions) func(*http.Request) *mcp.Server {
	if o == nil {
		o = &SessionOptions{}
	}
	var newID func() string
	if o.InstanceID != "" {
		newID = func() string { return o.InstanceID + "." + rand.Text() }
	}
	// The SDK asks for a server on every request, and uses the one made
	// for a request without a session id as the new session's: a session
	// is placed on the pool when the server learns it, its first request,
	// so the servers the SDK throws away count nowhere.
	return func(*http.Request) *mcp.Server {
		sl := &slot{pool: pool, isolate: o.Isolate, maxTabs: o.MaxTabs}
		return newServer(sl.get, version, list, func(ss *mcp.ServerSession) {
			sl.place(ss.ID())
			closed := sl.env.ObsSession()
			go func() {
				ss.Wait()
				release(sl.member, sl.close)
				sl.done()
				closed(telemetry.ReasonEnded)
			}()
		}, newID)
	}
}

// slot is one session's place in the pool, taken once, on the session's
// first request (the server's receiving middleware learns the session
// before any handler runs).
type slot struct {
	pool    *Pool
	isolate bool
	maxTabs int

	once   sync.Once
	member *tools.Env // set by once: the pool member the session is on
	env    *tools.Env // set by once: member scoped to the session
	close  func(context.Context)
	done   func()
}

// place puts the session, whose Mcp-Session-Id is id, on the pool.
func (s *slot) place(id string) {
	s.once.Do(func() {
		var i int
		i, s.done = s.pool.place()
		s.member = s.pool.envs[i]
		s.env, s.close = s.member.Scoped(s.isolate, s.maxTabs)
		s.env.SessionID = id // logs name it as its client does
	})
}

// get is the session's env, placing the session if it was not yet.
func (s *slot) get() *tools.Env {
	s.place("")
	return s.env
}

// release closes an ended session's tabs, if a browser is running.
func release(env *tools.Env, closeScope func(context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	closeScope(ctx)
	env.Log.Debug("closed an ended session's tabs")
}
