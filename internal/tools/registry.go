// Package tools is the tool registry: every tool is declared once —
// name, description, typed arguments, annotations and handler — and the MCP
// server, the CLI and the docs are derived from these declarations. Handlers
// speak to internal/browser, never to CDP or MCP.
//
// The framework, apart from the tool files (one per tool group):
// registry.go declares tools (Tool, define, defineOn, All); call.go runs
// one call (Call: its deadline, panics, timeouts); door.go opens the door
// to a tab (selector, scope, lease, crash check, queue, dialogs) and fills
// the changes section that changes*.go compute; render.go is the result
// and its text and structured forms; env.go is what handlers work with;
// capabilities.go is what tools need from a backend.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

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
	// queues the call before the handler gets the tab. The helper that
	// declares the tool sets it: defineOn does, define does not; the
	// fields below, up to SaysWhere, are the door's and need it.
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
// are required. Such a tool has no door, so it cannot claim what the
// door does (Tab, NoQueue, Recovers, Dialog, Changes, SaysWhere).
func define[In any](t Tool, h func(ctx context.Context, env *Env, in In) (*Result, error)) Tool {
	if t.Tab || t.NoQueue || t.Recovers || t.Dialog != DialogBlocks || t.Changes != NoChanges || t.SaysWhere {
		panic(fmt.Sprintf("tools: %s: a tool on a tab is declared with defineOn", t.Name))
	}
	return declare(t, func(ctx context.Context, env *Env, _ *door, in In) (*Result, error) { return h(ctx, env, in) })
}

// defineOn declares a tool that works on a tab (it sets Tab): the handler
// gets the door the registry opened for the call, with the browser and the
// ready tab.
func defineOn[In any](t Tool, h func(ctx context.Context, env *Env, d *door, in In) (*Result, error)) Tool {
	t.Tab = true
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
