// Package tools is the tool registry: every tool is declared once here —
// name, description, typed arguments, annotations and handler — and the MCP
// server, the CLI and the docs are derived from these declarations. Handlers
// speak to internal/browser, never to CDP or MCP.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// DefaultTimeout bounds a tool call when Env.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Env is what handlers work with. It is shared by all calls and must not be
// changed after the first call.
type Env struct {
	Browsers  *browser.Manager
	Artifacts *policy.Artifacts // where tools write files
	Log       *slog.Logger
	// Timeout bounds each tool call; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxScreenshotPixels and MaxImageBytes bound a screenshot's width ×
	// height and encoded size; zero means browser.DefaultMaxScreenshotPixels
	// and browser.DefaultMaxImageBytes.
	MaxScreenshotPixels int
	MaxImageBytes       int
	// UploadRoots are the directories upload_file may read files from;
	// nil means the artifact dir and the working directory.
	UploadRoots policy.UploadRoots
	// AllowEval enables evaluate_script, which runs the agent's JavaScript
	// in the page; it is off by default.
	AllowEval bool
	// DialogPolicy says which JavaScript dialogs cdpkit answers by itself;
	// "" means browser.DialogsReport.
	DialogPolicy browser.DialogPolicy
	// URLPolicy checks the URLs tools are asked to open, before the
	// browser's own guard does; nil means the defaults of policy.Policy.
	URLPolicy *policy.Policy
	// Scope is the client's own tabs (one per HTTP session); nil means
	// every tab (stdio, the CLI daemon).
	Scope *browser.Scope
}

// Result is a tool's successful output. Data is sent as compact JSON; Text,
// if set, follows it verbatim on the next line (a snapshot would lose its
// compactness to JSON escaping); Image, if set, is sent as image content.
type Result struct {
	Data  any
	Text  string
	Image *Image
}

// Image is encoded image data.
type Image struct {
	Data     []byte
	MIMEType string
}

// Tool is one declared tool.
type Tool struct {
	Name        string
	Description string
	ReadOnly    bool // does not change the page or browser
	Destructive bool // may destroy state (closing a tab)
	Idempotent  bool // repeating it has no further effect
	// InputSchema is inferred from the handler's argument type.
	InputSchema *jsonschema.Schema

	call func(ctx context.Context, env *Env, args json.RawMessage) (*Result, error)
}

// define declares a tool whose arguments decode into In. Field docs come
// from `jsonschema:"…"` tags; fields without `omitempty` are required.
func define[In any](t Tool, h func(ctx context.Context, env *Env, in In) (*Result, error)) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: inferring schema: %v", t.Name, err))
	}
	// Unknown arguments are refused when decoding; saying so in every
	// schema would cost tokens on every turn.
	schema.AdditionalProperties = nil
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: resolving schema: %v", t.Name, err))
	}
	t.InputSchema = schema
	t.call = func(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
		in, err := decodeArgs[In](raw, resolved)
		if err != nil {
			return nil, err
		}
		return h(ctx, env, in)
	}
	return t
}

// decodeArgs validates raw against the schema and decodes it strictly.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, errorf(InvalidArgs, false, "arguments are a JSON object", "arguments are not a JSON object: %v", err)
	}
	if err := schema.Validate(generic); err != nil {
		return in, errorf(InvalidArgs, false, "see the tool's input schema", "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, errorf(InvalidArgs, false, "see the tool's input schema", "%v", err)
	}
	return in, nil
}

// Call runs the tool with JSON arguments under the env's timeout. It never
// panics: a panic in a handler becomes an Internal error. The error, if
// any, is always an *Error.
func (t *Tool) Call(ctx context.Context, env *Env, args json.RawMessage) (res *Result, err error) {
	timeout := env.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			env.Log.Error("tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, errorf(Internal, false, "this is a cdpkit bug; please report it", "%s failed unexpectedly", t.Name)
		}
	}()
	start := time.Now()
	res, err = t.call(ctx, env, args)
	if err != nil {
		te := AsError(err)
		env.Log.Debug("tool failed", "tool", t.Name, "code", te.Code, "ms", time.Since(start).Milliseconds(), "err", err)
		return nil, te
	}
	env.Log.Debug("tool done", "tool", t.Name, "ms", time.Since(start).Milliseconds())
	return res, nil
}

// All returns every tool, sorted by name.
func All() []Tool {
	all := slices.Concat(pageTools(), screenshotTools(), snapshotTools(), findTools(), readTools(), formTools(), emulateTools(), pointerTools(),
		dialogTools(), waitTools(), evalTools())
	slices.SortFunc(all, func(a, b Tool) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return all
}
