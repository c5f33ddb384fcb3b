package mcpserver

import (
	"context"
	"net/http"
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
}

// PerSession returns the server factory for [NewHTTPHandler] that gives
// each MCP session its own tabs: a server whose tools run with a copy of
// env scoped to the session ([tools.Env.Scoped]). The session sees, resolves
// and opens only its own tabs (a tab id of another session matches
// nothing), gets a tab on first use, and its tabs (and, with o.Isolate,
// its browser context) are closed when the session ends: closed by the
// client, or expired (HTTPOptions.SessionTimeout).
//
// Session ids only route requests; they are not credentials, and
// NewHTTPHandler checks the bearer token on every request.
func PerSession(env *tools.Env, version string, list []tools.Tool, o *SessionOptions) func(*http.Request) *mcp.Server {
	isolate := o != nil && o.Isolate
	return func(*http.Request) *mcp.Server {
		e, closeScope := env.Scoped(isolate)
		return newServer(e, version, list, func(ss *mcp.ServerSession) {
			closed := e.ObsSession()
			go func() {
				ss.Wait()
				release(env, closeScope)
				closed(telemetry.ReasonEnded)
			}()
		})
	}
}

// release closes an ended session's tabs, if a browser is running.
func release(env *tools.Env, closeScope func(context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	closeScope(ctx)
	env.Log.Debug("closed an ended session's tabs")
}
