// Package mcpserver exposes the tool registry over MCP. It knows the MCP
// SDK and the registry, nothing of CDP.
package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// New returns an MCP server offering tools, each call run with env.
func New(env *tools.Env, version string, list []tools.Tool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cdpkit", Version: version}, &mcp.ServerOptions{
		Instructions: "cdpkit drives a real Chromium. Tabs are chosen with `target` " +
			"(active, index:N, url:SUBSTR, title:SUBSTR or an id). Failed calls return [CODE] message with a hint.",
	})
	for i := range list {
		t := &list[i]
		s.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: annotations(t),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := t.Call(ctx, env, req.Params.Arguments)
			if err != nil {
				return errorResult(err.(*tools.Error)), nil
			}
			return result(res), nil
		})
	}
	return s
}

func annotations(t *tools.Tool) *mcp.ToolAnnotations {
	destructive := t.Destructive
	openWorld := true
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    t.ReadOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  t.Idempotent,
		OpenWorldHint:   &openWorld,
	}
}

// result renders a success as compact JSON text (then the raw text, if
// any, on the next line), plus the image if any.
func result(r *tools.Result) *mcp.CallToolResult {
	var text string
	if r.Data != nil {
		b, err := json.Marshal(r.Data)
		if err != nil {
			return errorResult(&tools.Error{Code: tools.Internal, Message: "encoding the result: " + err.Error()})
		}
		text = string(b)
	}
	if r.Text != "" {
		if text != "" {
			text += "\n"
		}
		text += r.Text
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
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
