package cdpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// CallResult is what a tool returned, as cdpkit's MCP server sends it:
// its structured data, the text that follows it (a snapshot, a list), and
// an image.
type CallResult struct {
	// Data is the tool's structured result as JSON (MCP's
	// structuredContent); Decode reads it into a struct of yours.
	Data json.RawMessage
	// Text is the tool's text part; "" for most tools.
	Text string
	// Image is an image the tool returned (take_screenshot with
	// inline, say), and ImageType its MIME type.
	Image     []byte
	ImageType string
	// SessionReset says the browser was started anew before this call
	// (after a crash): tabs, refs and page state from before are gone.
	SessionReset bool
}

// Decode unmarshals Data into v, a pointer to a struct whose JSON tags
// name the tool's result fields (docs/tools.md); the error is an *Error.
func (r *CallResult) Decode(v any) error {
	if len(r.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		return &Error{Code: string(tools.InvalidArgs), Message: "decoding the result: " + err.Error(),
			Hint: "give a pointer to a struct whose JSON tags match the tool's result"}
	}
	return nil
}

// Call runs any of cdpkit's tools by name (docs/tools.md lists them and
// their arguments) with args: a struct or map that encodes as a JSON
// object with the tool's argument names, or nil. It goes through the same
// door as the typed methods and MCP: argument checks, URL policy, target
// resolution, leases, the per-tab queue, dialog and crash checks, ctx and
// Options.Timeout as its deadline. A failure is an *Error; a tool this
// browser cannot run fails with UNSUPPORTED, an unknown one with
// INVALID_ARGS.
func (b *Browser) Call(ctx context.Context, tool string, args any) (*CallResult, error) {
	raw, err := argsObject(args)
	if err != nil {
		return nil, err
	}
	return b.callRaw(ctx, tool, raw)
}

// Call is Browser.Call on this tab: its target (and its lease, when the
// tab came from Claim) are set unless args sets them.
func (t *Tab) Call(ctx context.Context, tool string, args any) (*CallResult, error) {
	raw, err := argsObject(args)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "args: " + err.Error()}
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	if _, ok := m["target"]; !ok {
		m["target"], _ = json.Marshal(t.id)
	}
	if _, ok := m["lease"]; !ok && t.lease != "" {
		m["lease"], _ = json.Marshal(t.lease)
	}
	raw, _ = json.Marshal(m)
	return t.b.callRaw(ctx, tool, raw)
}

func (b *Browser) callRaw(ctx context.Context, tool string, raw json.RawMessage) (*CallResult, error) {
	res, err := b.runRaw(ctx, tool, raw)
	if err != nil {
		return nil, err
	}
	out := &CallResult{Text: res.Text, SessionReset: res.SessionReset}
	if res.Data != nil {
		if out.Data, err = json.Marshal(res.Data); err != nil {
			return nil, &Error{Code: string(tools.Internal), Message: fmt.Sprintf("encoding %s's result: %v", tool, err), Hint: "this is a cdpkit bug"}
		}
	}
	if res.Image != nil {
		out.Image, out.ImageType = res.Image.Data, res.Image.MIMEType
	}
	return out, nil
}

// argsObject encodes args as a JSON object; nil is {}.
func argsObject(args any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage(`{}`), nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "args: " + err.Error(), Hint: "give a struct or map that encodes as a JSON object"}
	}
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "args are not a JSON object", Hint: "give a struct or map that encodes as a JSON object"}
	}
	return raw, nil
}
