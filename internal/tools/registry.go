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
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/lease"
	"github.com/cdpkit/cdpkit/internal/lighthouse"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/telemetry"
)

// Bounds of a tool call's deadline.
const (
	// DefaultTimeout bounds a tool call when Env.Timeout is zero.
	DefaultTimeout = 30 * time.Second
	// MaxTimeout is the most a call may ask for with timeout_ms, and caps
	// Env.Timeout.
	MaxTimeout = 120 * time.Second
)

// timeoutArg is the argument every tool accepts, outside its schema (the
// schemas would pay for it on every turn): the call's deadline in ms.
const timeoutArg = "timeout_ms"

// Env is what handlers work with. It is shared by all calls and must not be
// changed after the first call.
type Env struct {
	Browsers  *driver.Manager
	Artifacts *policy.Artifacts // where tools write files
	Log       *slog.Logger
	// Timeout bounds each tool call that gives no timeout_ms; zero means
	// DefaultTimeout, and more than MaxTimeout means MaxTimeout.
	Timeout time.Duration
	// QueueLimit is how many state-changing calls may wait for one tab;
	// zero means driver.DefaultQueueLimit.
	QueueLimit int
	// MaxScreenshotPixels and MaxImageBytes bound a screenshot's width ×
	// height and encoded size; zero means driver.DefaultMaxScreenshotPixels
	// and driver.DefaultMaxImageBytes.
	MaxScreenshotPixels int
	MaxImageBytes       int
	// UploadRoots are directories upload_file may read files from, besides
	// the artifact dir (always a root).
	UploadRoots policy.UploadRoots
	// CallerDirs lets a call's directory (WithCallerDir, sent by the CLI)
	// be an upload root for that call when it is a safe root. Only the
	// CLI's daemon, on its private socket, sets it.
	CallerDirs bool
	// AllowEval enables evaluate_script, which runs the agent's JavaScript
	// in the page; it is off by default.
	AllowEval bool
	// DialogPolicy says which JavaScript dialogs cdpkit answers by itself;
	// "" means driver.DialogsReport.
	DialogPolicy driver.DialogPolicy
	// URLPolicy checks the URLs tools are asked to open, before the
	// browser's own guard does; nil means the defaults of policy.Policy.
	URLPolicy *policy.Policy
	// ShowSecrets shows credential headers (policy.SecretHeader) in
	// network tool results instead of redacting them (--show-secrets).
	ShowSecrets bool
	// Scope is the client's own tabs (one per HTTP session); nil means
	// every tab (stdio, the CLI daemon).
	Scope *driver.Scope
	// Leases is the tab lease store shared by every cdpkit process on the
	// machine; nil turns leases off (claim_page fails, lease is refused).
	Leases *lease.Store
	// Client names the client inside this process that calls come from,
	// which with the pid is who owns a lease: "stdio", "cli:SESSION", or
	// a fresh id per HTTP session (set by Scoped).
	Client string
	// SessionID names the session in logs and spans: an HTTP session's
	// Mcp-Session-Id, which its client sees; "" means Client. It is kept
	// apart from Client because lease labels, which other sessions see,
	// carry Client, and a session id with the token would let them speak
	// for the session.
	SessionID string
	// RequireLease is strict mode: a call on a tab nobody holds acquires
	// an auto lease for its owner, new_page claims the tab it opens, and
	// list_pages and list_leases reap tabs abandoned by dead owners.
	RequireLease bool
	// LeaseTTL is a new lease's ttl when the call gives none; zero means
	// the store's.
	LeaseTTL time.Duration
	// Lighthouse installs and runs Lighthouse for lighthouse_audit; nil
	// means one that installs into lighthouse.DefaultCacheDir and finds
	// node and npm on PATH.
	Lighthouse *lighthouse.Runner
	// FFmpeg encodes screen recordings; "" means $CDPKIT_FFMPEG, else
	// ffmpeg on PATH. RecordingMax caps a recording ("500MB,10m"); ""
	// means $CDPKIT_RECORDING_MAX, else the record package's defaults.
	FFmpeg       string
	RecordingMax string
	// Telemetry records each call (a log record, a span, metrics) and
	// each scoped session; nil means records on Log only (telemetry.Off).
	Telemetry *telemetry.Telemetry
}

// Result is a tool's successful output. Data is sent as compact JSON; Text,
// if set, follows it verbatim on the next line (a snapshot would lose its
// compactness to JSON escaping); Image, if set, is sent as image content.
type Result struct {
	Data  any
	Text  string
	Image *Image
	// SessionReset says the browser was restarted before this call: tabs,
	// refs and page state from before are gone.
	SessionReset bool
}

// Image is encoded image data.
type Image struct {
	Data     []byte
	MIMEType string
}

// Tool is one declared tool: what it is and does, and what it needs from
// the registry before its handler runs. The registry, not the handler,
// resolves the target, applies the session's scope, queues, checks crashes
// and dialogs, and builds the changes section, from these declarations;
// profiles and CLI verbs are read from them too.
type Tool struct {
	Name        string
	Description string
	ReadOnly    bool // does not change the page or browser
	Destructive bool // may destroy state (closing a tab)
	Idempotent  bool // repeating it has no further effect
	// NoQueue says the tool never waits behind other calls on its tab,
	// though it changes state: it must work while a call there is stuck
	// (answering the dialog that blocks it, closing the tab). Otherwise a
	// state-changing tool takes the tab's slot (FIFO) and a read-only one
	// waits only for a navigation in flight.
	NoQueue bool
	// Tab says the tool works on the tab its target argument names: the
	// registry starts the browser, resolves the target within the call's
	// scope, applies the dialog policy, checks that the renderer lives and
	// queues the call before the handler gets the tab.
	Tab bool
	// Recovers says the tool works on a crashed tab (navigating it
	// recovers it; selecting or closing it needs no renderer).
	Recovers bool
	// Dialog says what a JavaScript dialog waiting for an answer does to
	// the call.
	Dialog DialogRule
	// Changes says whether the result reports what the call changed; the
	// registry notes the tab's state before the handler and adds the
	// changes section to the result's Data after it.
	Changes ChangeReport
	// SaysWhere says the result already gives the tab's URL and title,
	// so its changes section leaves them out.
	SaysWhere bool
	// Core puts the tool in the core profile, the default --tools.
	Core bool
	// Verbs are the tool's short CLI commands.
	Verbs []Verb
	// Timeout, if longer than Env.Timeout, is the call's deadline when it
	// gives no timeout_ms (capped by MaxTimeout): for tools whose work
	// takes longer than most (an audit).
	Timeout time.Duration
	// InputSchema is inferred from the handler's argument type.
	InputSchema *jsonschema.Schema
	// OutputSchema, set for tools that report changes, describes the
	// structured form of their results (Result.Structured) as far as
	// programs rely on it: changes.elements is a list of lines. Others
	// have none, which saves tools/list its size; their results are
	// structured all the same.
	OutputSchema *jsonschema.Schema
	// ownLease says the tool's own arguments have a lease field, so the
	// registry leaves it to the tool rather than checking it at the door.
	ownLease bool

	call func(ctx context.Context, env *Env, args json.RawMessage) (*Result, error)
}

// DialogRule is what an open JavaScript dialog means for a tool's call.
type DialogRule int

const (
	// DialogBlocks fails the call with DIALOG_OPEN while a dialog waits:
	// the page can do nothing until it is answered.
	DialogBlocks DialogRule = iota
	// DialogPasses lets the call run while a dialog waits (it reports the
	// dialog itself, or needs no page).
	DialogPasses
	// DialogClears needs a dialog to answer: NO_DIALOG when none waits.
	DialogClears
)

// ChangeReport is whether a tool's result reports what changed.
type ChangeReport int

const (
	// NoChanges: the result has no changes section.
	NoChanges ChangeReport = iota
	// ReportChanges: the result has one; failing to read it fails the call.
	ReportChanges
	// TryChanges: the result has one if the page can be read after the
	// action; the action's own result matters more (a navigation, a
	// script's value).
	TryChanges
)

// Verb is a short CLI command for a call of its tool, such as
// `cdpkit click e12`.
type Verb struct {
	Name string
	// Args names the tool arguments the words after the verb fill, in
	// order. "uid:ref" fills uid and shows it as <ref> in usage lines; a
	// trailing "?" marks one optional.
	Args []string
	// Fixed are arguments always sent.
	Fixed   map[string]any
	Summary string
	// Rank orders the verbs in help, lowest first.
	Rank int
}

// checker is implemented by arguments that check themselves before the
// registry opens the door to a tab: a bad argument is refused before any
// browser work (and before waiting in a tab's queue). check may fill
// unexported fields with what it parsed.
type checker interface {
	check(ctx context.Context, env *Env) error
}

// tabless is implemented by the arguments of a Tab tool for calls that
// need no tab after all (wait_for with only a time).
type tabless interface {
	noTab() bool
}

// define declares a tool that needs no tab, whose arguments decode into In.
// Field docs come from `jsonschema:"…"` tags; fields without `omitempty`
// are required.
func define[In any](t Tool, h func(ctx context.Context, env *Env, in In) (*Result, error)) Tool {
	if t.Tab || t.Changes != NoChanges {
		panic(fmt.Sprintf("tools: %s: a tool on a tab is declared with defineOn", t.Name))
	}
	return declare(t, func(ctx context.Context, env *Env, _ *door, in In) (*Result, error) { return h(ctx, env, in) })
}

// defineOn declares a tool that works on a tab: the handler gets the door
// the registry opened for the call, with the browser and the ready tab.
func defineOn[In any](t Tool, h func(ctx context.Context, env *Env, d *door, in In) (*Result, error)) Tool {
	if !t.Tab {
		panic(fmt.Sprintf("tools: %s: defineOn needs Tab", t.Name))
	}
	return declare(t, h)
}

// targetDescription describes the tab selector of every tool that acts on
// a tab and says nothing more specific: what list_pages and new_page give.
// Its other forms are described once, on select_page's target, and in the
// README, since every word here is paid for on every tool.
const targetDescription = "tab id"

func declare[In any](t Tool, h func(ctx context.Context, env *Env, d *door, in In) (*Result, error)) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: inferring schema: %v", t.Name, err))
	}
	// Unknown arguments are refused when decoding; saying so in every
	// schema would cost tokens on every turn.
	schema.AdditionalProperties = nil
	for _, p := range schema.Properties {
		// A Go slice or pointer may be nil, but a client sends a value or
		// nothing: ["null","array"] says less than "array" and costs more.
		// A property whose description gives null a meaning (emulate's
		// "null clears it") keeps it, or the client's null is refused.
		if len(p.Types) == 2 && p.Types[0] == "null" && !strings.Contains(p.Description, "null") {
			p.Types, p.Type = nil, p.Types[1]
		}
	}
	dropAlias(schema)
	if p := schema.Properties["target"]; p != nil && p.Description == "" {
		p.Description = targetDescription
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: resolving schema: %v", t.Name, err))
	}
	t.InputSchema = schema
	if t.Changes != NoChanges {
		t.OutputSchema = changesOutputSchema()
	}
	_, t.ownLease = schema.Properties[leaseArg]
	t.call = func(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
		in, common, err := decodeArgs[In](raw, resolved)
		if err != nil {
			return nil, inPhase(PhaseArgs, err)
		}
		if c, ok := any(&in).(checker); ok {
			if err := c.check(ctx, env); err != nil {
				return nil, inPhase(PhaseArgs, err)
			}
		}
		if n, ok := any(&in).(tabless); !t.Tab || ok && n.noTab() {
			res, err := h(ctx, env, nil, in)
			return res, inPhase(PhaseAction, err)
		}
		if c := callFrom(ctx); c != nil {
			common.IncludeSnapshot = common.IncludeSnapshot || c.includeSnapshot
		}
		return t.through(ctx, env, common, func(ctx context.Context, d *door) (*Result, error) { return h(ctx, env, d, in) })
	}
	return t
}

// dropAlias removes byText's old name from the schema's properties and
// those of its items, wherever byText is: decoding still accepts it.
func dropAlias(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties["byText"] != nil {
		delete(s.Properties, byTextAlias)
	}
	for _, p := range s.Properties {
		dropAlias(p)
	}
	dropAlias(s.Items)
}

// commonArgs are the arguments the registry itself reads.
type commonArgs struct {
	Target          string
	IncludeSnapshot bool
}

// decodeArgs validates raw against the schema and decodes it strictly; it
// also returns the common arguments (target).
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, commonArgs, error) {
	var in In
	var common commonArgs
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, common, errorf(InvalidArgs, false, "arguments are a JSON object", "arguments are not a JSON object: %v", err)
	}
	if err := schema.Validate(generic); err != nil {
		return in, common, errorf(InvalidArgs, false, argHint(generic, schema), "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, common, errorf(InvalidArgs, false, argHint(generic, schema), "%v", err)
	}
	// The schema checked their types, where the tool has them.
	common.Target, _ = generic["target"].(string)
	common.IncludeSnapshot, _ = generic[snapshotArg].(bool) // a tool with it in its schema (evaluate_script)
	return in, common, nil
}

// argHint is the hint for arguments that do not validate or decode. It
// answers two habits of Playwright MCP's: element (a description) and ref
// name an element that cdpkit names by uid alone, and text is what to
// type where cdpkit's text (byText) finds the element by its text.
func argHint(args map[string]any, schema *jsonschema.Resolved) string {
	props := schema.Schema().Properties
	_, ref := args["ref"]
	_, element := args["element"]
	_, text := args[byTextAlias]
	_, value := args["value"]
	switch {
	case (ref || element) && props["uid"] != nil:
		return "pass the element's ref from take_snapshot as uid (ref and element are Playwright MCP's names; cdpkit needs no element description)"
	case text && !value && props["value"] != nil && props["byText"] != nil:
		return "give what to type as value; text (byText's old name) finds the element by its visible text"
	}
	return "see the tool's input schema"
}

// Call runs the tool with JSON arguments under the env's timeout, or the
// timeout_ms argument, which any tool accepts (0 < timeout_ms ≤
// MaxTimeout). State-changing calls on one tab wait for each other (see
// Tool.through); Call releases the tab when the handler returns. It never
// panics: a panic in a handler becomes an Internal error. The error, if
// any, is always an *Error; a TIMEOUT names the step that was slow.
func (t *Tool) Call(ctx context.Context, env *Env, args json.RawMessage) (res *Result, err error) {
	timeout := min(env.Timeout, MaxTimeout)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	timeout = max(timeout, min(t.Timeout, MaxTimeout))
	args, err = t.compat(args)
	if err != nil {
		return nil, argsError(err)
	}
	args, asked, err := takeTimeout(args)
	if err != nil {
		return nil, argsError(err)
	}
	if asked > 0 {
		timeout = asked
	}
	var full bool
	if args, full, err = t.takeSnapshotArg(args); err != nil {
		return nil, argsError(err)
	}
	var token string
	if t.Tab && !t.ownLease {
		if args, token, err = takeLease(args); err != nil {
			return nil, argsError(err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, steps := driver.WithSteps(ctx)
	ctx, rec := env.obsStart(ctx, t, steps)
	defer func() { obsEnd(rec, args, res, err) }() // after the recover below
	c := &call{tool: t, lease: token, includeSnapshot: full}
	ctx = context.WithValue(ctx, callKey{}, c)
	defer c.end()
	defer func() {
		if p := recover(); p != nil {
			env.Log.Error("tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, errorf(Internal, false, "this is a cdpkit bug; please report it", "%s failed unexpectedly", t.Name)
		}
	}()
	defer env.Browsers.Use()() // an idle shutdown waits for the call
	start := time.Now()
	res, err = t.call(ctx, env, args)
	if err != nil {
		if isTimeout(err) || cutShort(ctx, err) {
			err = &stepTimeout{Tool: t.Name, After: time.Since(start), Step: steps.Current(), Tab: t.Tab, Err: err}
		}
		te := withPhase(AsError(err), err)
		env.Log.Debug("tool failed", "tool", t.Name, "code", te.Code, "phase", te.Phase, "ms", time.Since(start).Milliseconds(), "err", err)
		return nil, te
	}
	env.Log.Debug("tool done", "tool", t.Name, "ms", time.Since(start).Milliseconds())
	if res != nil {
		res.SessionReset = env.takeReset()
	}
	return res, nil
}

// takeTimeout removes timeout_ms from raw arguments and returns it; zero
// when absent.
func takeTimeout(raw json.RawMessage) (json.RawMessage, time.Duration, error) {
	if !bytes.Contains(raw, []byte(timeoutArg)) {
		return raw, 0, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, 0, nil // not an object: decoding says so
	}
	v, ok := m[timeoutArg]
	if !ok {
		return raw, 0, nil
	}
	bad := errorf(InvalidArgs, false, fmt.Sprintf("give timeout_ms in ms, above 0 and at most %d", MaxTimeout.Milliseconds()),
		"timeout_ms %s is out of range", v)
	var ms float64
	if err := json.Unmarshal(v, &ms); err != nil || ms <= 0 || ms > float64(MaxTimeout.Milliseconds()) {
		return nil, 0, bad
	}
	delete(m, timeoutArg)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, 0, bad
	}
	return out, time.Duration(ms * float64(time.Millisecond)), nil
}

// All returns every tool, sorted by name.
func All() []Tool {
	all := slices.Concat(pageTools(), screenshotTools(), snapshotTools(), findTools(), readTools(), formTools(), emulateTools(), pointerTools(),
		dialogTools(), waitTools(), evalTools(), networkTools(), mockTools(), cookieTools(), downloadTools(), pdfTools(), visionTools(),
		perfTools(), heapTools(), lighthouseTools(), leaseTools(), recordTools())
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

// Scoped returns a copy of env whose calls see, resolve and open only
// their own tabs, such as one MCP session's (a tab of another scope
// matches nothing), and the function that closes those tabs (and, with
// isolate, their own browser context: cookies, storage and cache apart
// from other scopes') when the scope ends. The scope may have maxTabs tabs
// open at once (0: no bound); one more is LIMIT_REACHED. Close's ctx
// bounds the closing; it does nothing when no browser runs.
//
// With isolate the scope's files live apart too: its artifact dir is
// sessions/<client id>/ of env's (downloads included), it can read and
// upload only what is in there (and in the operator's upload roots), and
// the folder is removed at the end if the session saved nothing.
func (env *Env) Scoped(isolate bool, maxTabs int) (scoped *Env, close func(ctx context.Context)) {
	e := *env
	e.Client = newClientID()
	so := &driver.ScopeOptions{Isolate: isolate, MaxTabs: maxTabs}
	var own *policy.Artifacts
	if isolate && env.Artifacts != nil {
		var err error
		if own, err = env.Artifacts.Sub(filepath.Join("sessions", e.Client)); err != nil {
			// The session still runs; writing a file reports the cause.
			env.Log.Warn("making the session's artifact dir", "err", err)
			own = nil
		} else {
			e.Artifacts = own
			so.DownloadDir = filepath.Join(own.Dir(), "downloads")
		}
	}
	e.Scope = driver.NewScope(so)
	return &e, func(ctx context.Context) {
		e.forgetPageIDs()
		if d := env.Browsers.CurrentDriver(); d != nil {
			d.CloseScope(ctx, e.Scope)
			e.dropOwnerLeases(ctx, d)
		}
		if own != nil {
			own.CloseAndPrune()
		}
	}
}
