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
}

// compatTable maps tool → chrome-devtools-mcp argument → rule, for the
// arguments whose names differ from cdpkit's (those with the same name and
// meaning, such as uid, value, dblClick, key, text, submitKey, action,
// promptText, url, type, ignoreCache, timeout, background, bringToFront,
// includeSnapshot, pageSize, pageIdx, types, msgid, fullPage, format,
// quality, filePath, need nothing). The README lists both.
var compatTable = map[string]map[string]compatRule{
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

// pageIDHint is the refusal of chrome-devtools-mcp's pageId, whose ids
// never renumber while cdpkit's list_pages index does when a tab closes:
// mapping one onto the other could act on the wrong tab.
const pageIDHint = "cdpkit names tabs with target: a tab id or index:N from list_pages"

// compat rewrites chrome-devtools-mcp's argument names into cdpkit's where
// the meaning matches, drops those given their default meaning, and
// refuses with a hint those whose meaning cannot match (see compatTable).
func (t *Tool) compat(raw json.RawMessage) (json.RawMessage, error) {
	raw, v, err := takeArg(raw, "pageId")
	if err != nil {
		return nil, err
	}
	if v != nil {
		return nil, errorf(InvalidArgs, false, pageIDHint, "pageId is chrome-devtools-mcp's tab numbering, which cdpkit does not keep")
	}
	for name, rule := range compatTable[t.Name] {
		var v json.RawMessage
		if raw, v, err = takeArg(raw, name); err != nil {
			return nil, err
		}
		switch {
		case v == nil:
		case rule.same != nil && string(compact(v)) == string(rule.same):
		case rule.rename != "":
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil {
				return raw, nil
			}
			if _, both := m[rule.rename]; both {
				return nil, errorf(InvalidArgs, false, "give only "+rule.rename, "%s and %s say the same", name, rule.rename)
			}
			m[rule.rename] = v
			if raw, err = json.Marshal(m); err != nil {
				return nil, errorf(InvalidArgs, false, "see the tool's input schema", "arguments: %v", err)
			}
		default:
			return nil, errorf(InvalidArgs, false, rule.hint, "%s %s: %s", t.Name, name, fmt.Sprintf("chrome-devtools-mcp's %s=%s has no cdpkit equivalent", name, compact(v)))
		}
	}
	return raw, nil
}
