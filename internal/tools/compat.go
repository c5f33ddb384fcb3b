package tools

import (
	"encoding/json"
	"fmt"
)

// compatRule is what cdpkit does with one chrome-devtools-mcp argument.
type compatRule struct {
	rename string          // the cdpkit argument of the same meaning
	same   json.RawMessage // a value that means cdpkit's default: dropped
	hint   string          // otherwise: refused with INVALID_ARGS and this hint
	// list says cdpkit takes a list where the peers take one string: a
	// string becomes a one-item list.
	list bool
}

// compatTable maps tool → chrome-devtools-mcp argument → rule, for the
// arguments whose names differ from cdpkit's (those with the same name and
// meaning, such as uid, value, dblClick, key, text, submitKey, action,
// promptText, url, type, ignoreCache, timeout, background, bringToFront,
// includeSnapshot, pageSize, pageIdx, types, msgid, fullPage, format,
// quality, filePath, need nothing). docs/compare.md lists both.
var compatTable = map[string]map[string]compatRule{
	"wait_for":    {"text": {list: true}},
	"upload_file": {"filePaths": {rename: "paths"}},
	"take_snapshot": {"verbose": {same: json.RawMessage("false"),
		hint: "cdpkit's snapshot has one level of detail; drop verbose (interactive:true gives less)"}},
	"navigate_page": {
		"initScript": {hint: "cdpkit runs no script before a page's own; use evaluate_script after the load"},
		"handleBeforeUnload": {same: json.RawMessage(`"accept"`),
			hint: "cdpkit accepts beforeunload on navigation; to dismiss, start it with --dialogs dismiss"},
	},
	"new_page": {
		"timeout":         {rename: timeoutArg, same: json.RawMessage("0")},
		"isolatedContext": {hint: "each HTTP session of cdpkit serve has its own browser context; a call cannot name one"},
	},
	"list_console_messages": {
		"includePreservedMessages": {hint: "cdpkit keeps no earlier navigations' messages; call with preserve:true before navigating"},
		"includeStackTraces":       {hint: "get_console_message gives one message with its stack"},
		"serviceWorkerId":          {hint: "cdpkit reads pages' consoles only"},
	},
}

// compat rewrites chrome-devtools-mcp's argument names into cdpkit's where
// the meaning matches, drops those given their default meaning, and
// refuses with a hint those whose meaning cannot match (see compatTable).
// Its pageId, on a tool that acts on a tab, becomes the target
// "pageId:N" (see pageid.go).
func (t *Tool) compat(raw json.RawMessage) (json.RawMessage, error) {
	raw, v, err := takeArg(raw, "pageId")
	if err != nil {
		return nil, err
	}
	if v != nil {
		if raw, err = t.pageIDTarget(raw, v); err != nil {
			return nil, err
		}
	}
	if raw, err = numberTarget(raw); err != nil {
		return nil, err
	}
	for name, rule := range compatTable[t.Name] {
		var v json.RawMessage
		if raw, v, err = takeArg(raw, name); err != nil {
			return nil, err
		}
		switch {
		case v == nil:
		case rule.list:
			raw, err = putArg(raw, name, name, oneItem(v))
			if err != nil {
				return nil, err
			}
		case rule.same != nil && string(compact(v)) == string(rule.same):
		case rule.rename != "":
			if raw, err = putArg(raw, name, rule.rename, v); err != nil {
				return nil, err
			}
		default:
			return nil, errorf(InvalidArgs, false, rule.hint, "%s %s: %s", t.Name, name, fmt.Sprintf("chrome-devtools-mcp's %s=%s has no cdpkit equivalent", name, compact(v)))
		}
	}
	return raw, nil
}

// numberTarget turns a target given as a JSON number, such as the pageId
// new_page printed, into the selector "N" (a pageId).
func numberTarget(raw json.RawMessage) (json.RawMessage, error) {
	rest, v, err := takeArg(raw, "target")
	var n float64
	if err != nil || v == nil || json.Unmarshal(v, &n) != nil || n < 1 || n != float64(int(n)) {
		return raw, err // no number: decoding checks it
	}
	return putArg(rest, "target", "target", json.RawMessage(fmt.Sprint(`"`, int(n), `"`)))
}

// pageIDTarget turns chrome-devtools-mcp's pageId v into the target of a
// tool that acts on a tab.
func (t *Tool) pageIDTarget(raw, v json.RawMessage) (json.RawMessage, error) {
	if !t.Tab {
		return nil, errorf(InvalidArgs, false, "drop pageId", "pageId names a tab, and %s acts on none", t.Name)
	}
	var n float64
	if json.Unmarshal(v, &n) != nil || n < 1 || n != float64(int(n)) {
		return nil, errorf(InvalidArgs, false, "pageId is a page number from list_pages", "pageId %s is not a page number", compact(v))
	}
	target, err := json.Marshal(fmt.Sprintf("%s%d", pageIDPrefix, int(n)))
	if err != nil {
		return nil, err
	}
	return putArg(raw, "pageId", "target", target)
}

// oneItem returns v, or [v] when v is a JSON string.
func oneItem(v json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return v
	}
	list, err := json.Marshal([]string{s})
	if err != nil {
		return v
	}
	return list
}

// putArg sets raw's argument to v, which the call gave as from; from and
// to both given is INVALID_ARGS.
func putArg(raw json.RawMessage, from, to string, v json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, nil // not an object: decoding says so
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	if _, both := m[to]; both {
		return nil, errorf(InvalidArgs, false, "give only "+to, "%s and %s say the same", from, to)
	}
	m[to] = v
	out, err := json.Marshal(m)
	if err != nil {
		return nil, errorf(InvalidArgs, false, "see the tool's input schema", "arguments: %v", err)
	}
	return out, nil
}
