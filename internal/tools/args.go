package tools

import (
	"bytes"
	"encoding/json"
)

// snapshotArg is the argument every tool that reports changes accepts
// outside its schema (saying it in each schema would cost tools/list a
// line per tool; the server's instructions say it once): true returns the
// whole interactive snapshot instead of the element changes.
const snapshotArg = "includeSnapshot"

// takeSnapshotArg removes includeSnapshot from the arguments of a tool
// that reports changes and returns it.
func (t *Tool) takeSnapshotArg(raw json.RawMessage) (json.RawMessage, bool, error) {
	if t.Changes == NoChanges || t.InputSchema.Properties[snapshotArg] != nil {
		return raw, false, nil
	}
	raw, v, err := takeArg(raw, snapshotArg)
	if err != nil || v == nil {
		return raw, false, err
	}
	var full bool
	if json.Unmarshal(v, &full) != nil {
		return nil, false, errorf(InvalidArgs, false, "give includeSnapshot true or false", "includeSnapshot %s is not a boolean", v)
	}
	return raw, full, nil
}

// takeArg removes the member name from a JSON object of arguments and
// returns its value, nil when absent. Arguments that are no object are
// left for decoding to refuse.
func takeArg(raw json.RawMessage, name string) (json.RawMessage, json.RawMessage, error) {
	if !bytes.Contains(raw, []byte(`"`+name+`"`)) {
		return raw, nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, nil, nil
	}
	v, ok := m[name]
	if !ok {
		return raw, nil, nil
	}
	delete(m, name)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, nil, errorf(InvalidArgs, false, "see the tool's input schema", "arguments: %v", err)
	}
	return out, v, nil
}
