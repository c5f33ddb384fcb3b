package firefox

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/pagejs"
)

// Page-side JavaScript of this backend lives in js/, one function
// expression a file; the helpers shared with Chromium come from
// pagejs.Script. Values reach them as arguments, never spliced into
// their source.

//go:embed js/*.js
var jsFiles embed.FS

func ownScript(name string) string {
	b, err := jsFiles.ReadFile("js/" + name + ".js")
	if err != nil {
		panic(fmt.Sprintf("firefox: missing page script %s: %v", name, err)) // a build mistake
	}
	return string(b)
}

func sharedScript(name string) string {
	s, err := pagejs.Script(name)
	if err != nil {
		panic(err) // a build mistake
	}
	return s
}

// jsonCall wraps a function so that its arguments arrive as one JSON
// string and its value leaves as one: BiDi's remote values need no
// decoding then.
const jsonCall = `async function(__args) {
	const __f = (%s);
	const __r = await __f.apply(this, JSON.parse(__args));
	return __r === undefined ? 'null' : JSON.stringify(__r);
}`

// remoteValue is the part of a BiDi RemoteValue cdpkit reads.
type remoteValue struct {
	Type     string          `json:"type"`
	Value    json.RawMessage `json:"value"`
	SharedID string          `json:"sharedId"`
}

type evalResult struct {
	Type             string      `json:"type"` // "success" or "exception"
	Result           remoteValue `json:"result"`
	ExceptionDetails struct {
		Text string `json:"text"`
	} `json:"exceptionDetails"`
}

// sharedRef is a node argument or this: a BiDi SharedReference, and the
// browsing context (the tab's, or a frame's) whose document holds the
// node, where a script using it must run; "" means the tab's.
type sharedRef struct {
	SharedID string `json:"sharedId"`
	Context  string `json:"-"`
}

// targetOf is the context a call with this and args runs in: that of the
// node this names, else of the first node argument, else the tab's.
func (t *Tab) targetOf(this *sharedRef, args []any) string {
	if this != nil && this.Context != "" {
		return this.Context
	}
	for _, a := range args {
		if r, ok := a.(*sharedRef); ok && r.Context != "" {
			return r.Context
		}
	}
	return t.id
}

// callRaw runs script.callFunction with this (a node, or nil) and BiDi
// local-value args, in the document of the nodes given (see targetOf),
// and returns the remote value.
// A thrown exception is a *driver.EvalError; a node reference that no
// longer resolves is bidi.ErrNoSuchNode.
func (t *Tab) callRaw(ctx context.Context, fn string, this *sharedRef, args []any, maxObjectDepth int) (*remoteValue, error) {
	return t.call(ctx, t.targetOf(this, args), "", fn, this, args, maxObjectDepth)
}

// callRawIn is callRaw in the document of context (the tab's or a frame's).
func (t *Tab) callRawIn(ctx context.Context, context, fn string, args []any, maxObjectDepth int) (*remoteValue, error) {
	return t.call(ctx, context, "", fn, nil, args, maxObjectDepth)
}

// readSandbox names the sandbox (a realm of its own per document, as
// Chromium's isolated world) where cdpkit reads what a page shows: the
// snapshot walk with its hidden-text filter, and get_text. In it, the
// DOM's functions and the realm's globals (JSON, getComputedStyle) are
// the browser's, whatever the page did to its own: Firefox's Xray
// wrappers hide the page's changes to prototypes and its expandos. Node
// references cross realms by shared id.
const readSandbox = "cdpkit-read"

// callSandboxed is callRawIn in readSandbox.
func (t *Tab) callSandboxed(ctx context.Context, context, fn string, args []any, maxObjectDepth int) (*remoteValue, error) {
	return t.call(ctx, context, readSandbox, fn, nil, args, maxObjectDepth)
}

// call runs fn in context's document: in the page's own realm when
// sandbox is "", else in the named sandbox.
func (t *Tab) call(ctx context.Context, context, sandbox, fn string, this *sharedRef, args []any, maxObjectDepth int) (*remoteValue, error) {
	target := map[string]any{"context": context}
	if sandbox != "" {
		target["sandbox"] = sandbox
	}
	params := map[string]any{
		"functionDeclaration": fn,
		"target":              target,
		"awaitPromise":        true,
		"arguments":           args,
		"resultOwnership":     "none",
		"serializationOptions": map[string]any{
			"maxDomDepth": 0, "maxObjectDepth": maxObjectDepth, "includeShadowTree": "none",
		},
	}
	if this != nil {
		params["this"] = this
	}
	var r evalResult
	if err := t.b.conn.Call(ctx, "script.callFunction", params, &r); err != nil {
		return nil, err
	}
	if r.Type == "exception" {
		msg, _, _ := strings.Cut(r.ExceptionDetails.Text, "\n")
		return nil, &driver.EvalError{Message: msg}
	}
	return &r.Result, nil
}

// callJSON runs fn, a function expression, with this and args (any JSON
// values) and decodes its JSON-able value into out (which may be nil).
func (t *Tab) callJSON(ctx context.Context, fn string, this *sharedRef, out any, args ...any) error {
	return t.callJSONIn(ctx, "", fn, this, out, args...)
}

// callJSONSandboxed is callJSON in readSandbox.
func (t *Tab) callJSONSandboxed(ctx context.Context, fn string, this *sharedRef, out any, args ...any) error {
	return t.callJSONIn(ctx, readSandbox, fn, this, out, args...)
}

func (t *Tab) callJSONIn(ctx context.Context, sandbox, fn string, this *sharedRef, out any, args ...any) error {
	if args == nil {
		args = []any{}
	}
	a, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("firefox: encoding arguments: %w", err)
	}
	rv, err := t.call(ctx, t.targetOf(this, nil), sandbox, fmt.Sprintf(jsonCall, fn), this, []any{map[string]any{"type": "string", "value": string(a)}}, 0)
	if err != nil {
		return err
	}
	var s string
	if rv.Type != "string" || json.Unmarshal(rv.Value, &s) != nil {
		return fmt.Errorf("firefox: page script returned a %s, not JSON", rv.Type)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		return fmt.Errorf("firefox: decoding page script result: %w", err)
	}
	return nil
}

// isNoNode reports an error saying a node reference no longer resolves.
func isNoNode(err error) bool {
	return errors.Is(err, bidi.ErrNoSuchNode)
}
