package tools

import "encoding/json"

// compat rewrites chrome-devtools-mcp's argument names into cdpkit's where
// the meaning matches, and refuses with a hint those whose meaning cannot
// match; see compatTable.
func (t *Tool) compat(raw json.RawMessage) (json.RawMessage, error) {
	return raw, nil
}
