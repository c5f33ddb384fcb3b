// Package coreloop drives one MCP session through the agent's core loop
// (navigate → snapshot → fill → click → screenshot) on a small form page
// it serves, for the load generator (cmd/load) and the proxy test
// (deploy/). It knows MCP clients, not cdpkit's internals.
package coreloop

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Steps are the tools of one round, in order.
var Steps = []string{"navigate_page", "take_snapshot", "fill", "click", "take_screenshot"}

// Handler serves the form page at /form?n=ID: a Name textbox and a Greet
// button that writes "Hello, NAME" under it.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/form" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Form %s</title>
<h1>Session %[1]s</h1>
<label>Name <input id="n"></label>
<button onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('n').value">Greet</button>
<p id="out"></p>`, html.EscapeString(r.URL.Query().Get("n")))
	})
}

// ToolError is a tool call that returned an error result; Code is its
// [CODE], or "" when the text has none.
type ToolError struct {
	Tool, Code, Text string
}

func (e *ToolError) Error() string { return e.Tool + ": " + e.Text }

// CallError is a call that failed below the tool layer: the transport,
// a proxy, or the call's context.
type CallError struct {
	Tool string
	Err  error
}

func (e *CallError) Error() string { return e.Tool + ": " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

var codeRE = regexp.MustCompile(`^\[([A-Z_]+)\]`)

// Call runs one tool and returns its text; a tool error is a *ToolError,
// anything else a *CallError.
func Call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", &CallError{Tool: tool, Err: err}
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = tc.Text
			break
		}
	}
	if res.IsError {
		code := ""
		if m := codeRE.FindStringSubmatch(text); m != nil {
			code = m[1]
		}
		return "", &ToolError{Tool: tool, Code: code, Text: text}
	}
	return text, nil
}

// Round runs the loop once on site's form page (site is the server's base
// URL; id tells the sessions' pages apart) and returns each step's
// latency, in the order of Steps, as far as it got. callTimeout bounds
// each call.
func Round(ctx context.Context, cs *mcp.ClientSession, site, id string, callTimeout time.Duration) ([]time.Duration, error) {
	var took []time.Duration
	step := func(tool string, args map[string]any) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		start := time.Now()
		text, err := Call(ctx, cs, tool, args)
		took = append(took, time.Since(start))
		return text, err
	}
	if _, err := step("navigate_page", map[string]any{"url": site + "/form?n=" + id}); err != nil {
		return took, err
	}
	snap, err := step("take_snapshot", nil)
	if err != nil {
		return took, err
	}
	box, button := Ref(snap, "textbox", "Name"), Ref(snap, "button", "Greet")
	if box == "" || button == "" {
		return took, fmt.Errorf("take_snapshot: no Name textbox or Greet button in:\n%s", snap)
	}
	if _, err := step("fill", map[string]any{"uid": box, "value": "agent " + id}); err != nil {
		return took, err
	}
	if _, err := step("click", map[string]any{"uid": button}); err != nil {
		return took, err
	}
	if _, err := step("take_screenshot", nil); err != nil {
		return took, err
	}
	return took, nil
}

// Ref returns the ref of the snapshot line with role and name, such as
// `e12 button "Greet"`, or "".
func Ref(snapshot, role, name string) string {
	re := regexp.MustCompile(`(?m)^[-+~ ]*\s*(e\d+) ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`)
	if m := re.FindStringSubmatch(snapshot); m != nil {
		return m[1]
	}
	return ""
}

// Code names err for a tally: the tool error's code, "TRANSPORT" for a
// failed call, "DEADLINE" when the call ran out of time, "LOOP" otherwise.
func Code(err error) string {
	var te *ToolError
	var ce *CallError
	switch {
	case errors.As(err, &te):
		if te.Code == "" {
			return "TOOL"
		}
		return te.Code
	case errors.Is(err, context.DeadlineExceeded):
		return "DEADLINE"
	case errors.As(err, &ce):
		return "TRANSPORT"
	}
	return "LOOP"
}
