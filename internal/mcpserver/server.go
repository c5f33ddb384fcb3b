// Package mcpserver exposes the tool registry over MCP. It knows the MCP
// SDK and the registry, nothing of CDP.
package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// New returns an MCP server offering tools, each call run with env.
func New(env *tools.Env, version string, list []tools.Tool) *mcp.Server {
	return newServer(func() *tools.Env { return env }, version, list, nil, nil)
}

// newServer is New with a hook that learns each session the server serves
// (once, on its first request, initialize), and the source of new session
// ids (nil: the SDK's random ones). Each call runs with envOf's env, asked
// for after the session's first request.
func newServer(envOf func() *tools.Env, version string, list []tools.Tool, onSession func(*mcp.ServerSession), newID func() string) *mcp.Server {
	var seen sync.Once
	session := func(ss *mcp.ServerSession) {
		if onSession != nil && ss != nil {
			seen.Do(func() { onSession(ss) })
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "cdpkit", Version: version}, &mcp.ServerOptions{
		Instructions: "cdpkit drives a real Chromium. `target` picks a tab: active (default), index:N, " +
			"url:SUBSTR, title:SUBSTR or a tab id. Elements: `uid` is a ref from take_snapshot (e12). " +
			"Actions return what changed since your last look: `key: value` lines, then element lines (+ added, - removed, ~ changed). Failed calls return [CODE] message with a hint. " +
			"Any tool takes timeout_ms (default 30000, max 120000). " +
			"A tab tool takes lease: the token claim_page gave for a tab you leased.",
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) { session(req.Session) },
		GetSessionID:       newID,
	})
	// Learn the session on its first request, initialize: a client that
	// never sends notifications/initialized still ends, and is counted.
	// Other requests without a session (server/discover, which clients
	// send before initialize) get a throwaway one that is no session of
	// an agent's: it is not placed, counted or reported.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "initialize" {
				session(ss)
			}
			return next(ctx, method, req)
		}
	})
	addTools(s, envOf, list, session)
	return s
}

// AddTools adds list to s, each call run with env: the same handlers,
// deadlines, queues and policy as cdpkit's own servers. The public Go API
// (cdpkit.AddTools) embeds cdpkit's tools in another server with it.
func AddTools(s *mcp.Server, env *tools.Env, list []tools.Tool) {
	addTools(s, func() *tools.Env { return env }, list, func(*mcp.ServerSession) {})
}

func addTools(s *mcp.Server, envOf func() *tools.Env, list []tools.Tool, session func(*mcp.ServerSession)) {
	for i := range list {
		t := &list[i]
		def := &mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: annotations(t),
		}
		if t.OutputSchema != nil {
			def.OutputSchema = t.OutputSchema
		}
		s.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			session(req.Session)
			if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
				p := newProgress(ctx, req.Session, token, t.Name)
				defer p.stop()
				ctx = tools.WithProgress(ctx, p.report)
			}
			// The CLI sends the directory it runs in; the tools decide
			// whether to use it (tools.Env.CallerDirs).
			if dir, ok := req.Params.GetMeta()[tools.CallerDirMeta].(string); ok {
				ctx = tools.WithCallerDir(ctx, dir)
			}
			// A client's W3C trace context continues into the call's span.
			ctx = telemetry.WithTraceParent(ctx, req.Params.GetMeta())
			// The SDK cancels ctx when the client sends
			// notifications/cancelled for this call; the tool's work
			// stops with it.
			res, err := t.Call(ctx, envOf(), req.Params.Arguments)
			if err != nil {
				return errorResult(err.(*tools.Error)), nil
			}
			return result(res), nil
		})
	}
}

func annotations(t *tools.Tool) *mcp.ToolAnnotations {
	// destructiveHint and openWorldHint default to true in MCP: send only
	// destructiveHint, and only when false matters (a tool that writes).
	a := &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent}
	if !t.ReadOnly && !t.Destructive {
		no := false
		a.DestructiveHint = &no
	}
	return a
}

// result renders a success as the compact text an agent reads, with the
// same data as structured content for programs (see tools.Result.Render),
// plus the image if any.
func result(r *tools.Result) *mcp.CallToolResult {
	// The structure goes out as the JSON it already is (the SDK does the
	// same for typed tools): no map to build and encode again per call.
	text, structured, err := r.Encode()
	if err != nil {
		return errorResult(&tools.Error{Code: tools.Internal, Message: "encoding the result: " + err.Error()})
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
	if r.Image != nil {
		out.Content = append(out.Content, &mcp.ImageContent{Data: r.Image.Data, MIMEType: r.Image.MIMEType})
	}
	return out
}

// errorResult renders a failure as an isError result whose text starts with
// [CODE] and whose structured content is the error object.
func errorResult(e *tools.Error) *mcp.CallToolResult {
	text := e.Error()
	if e.Hint != "" {
		text += " (hint: " + e.Hint + ")"
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: e,
	}
}
