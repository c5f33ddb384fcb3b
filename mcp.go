package cdpkit

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// ToolOptions choose the tools AddTools adds. Nil means the core profile.
type ToolOptions struct {
	// Profile is "core" (the default: what the open → look → act → verify
	// loop needs) or "full" (every tool). Ignored when Names is set.
	Profile string
	// Names lists the tools to add, by name, instead of a profile.
	Names []string
	// Browser, for Tools, keeps only the tools that backend can run:
	// "chromium" (the default when empty) or "firefox". AddTools goes by
	// its Browser's backend instead.
	Browser string
}

func (o *ToolOptions) spec() string {
	switch {
	case o == nil:
		return "core"
	case len(o.Names) > 0:
		s := ""
		for i, n := range o.Names {
			if i > 0 {
				s += ","
			}
			s += n
		}
		return s
	}
	return o.Profile
}

// Tools returns the MCP definitions (name, description, input schema,
// annotations) of the tools o selects, sorted by name, as cdpkit's own
// server lists them. An unknown name or profile is an *Error with code
// INVALID_ARGS.
func Tools(o *ToolOptions) ([]*mcp.Tool, error) {
	list, err := tools.Select(o.spec())
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error()}
	}
	var name string
	if o != nil {
		name = o.Browser
	}
	backend, err := tools.ParseBackend(name)
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error()}
	}
	list = tools.ForBackend(list, backend)
	out := make([]*mcp.Tool, len(list))
	for i, t := range list {
		out[i] = &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out, nil
}

// AddTools adds the tools o selects to server, each call run on b with
// the same argument checks, deadlines (Options.Timeout, or the call's
// timeout_ms), per-tab queues, URL and eval policy and errors (isError
// results whose text starts with [CODE]) as cdpkit's own MCP server. All
// of server's sessions share b's tabs. Tools may be added before or while
// server runs; b must outlive the server's use of them.
func AddTools(server *mcp.Server, b *Browser, o *ToolOptions) error {
	list, err := tools.Select(o.spec())
	if err != nil {
		return &Error{Code: string(tools.InvalidArgs), Message: err.Error()}
	}
	mcpserver.AddTools(server, b.env, tools.ForBackend(list, b.backend))
	return nil
}
