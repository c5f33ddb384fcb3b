package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Result is a tool's successful output. Data is sent as compact JSON; Text,
// if set, follows it verbatim on the next line (a snapshot would lose its
// compactness to JSON escaping); Image, if set, is sent as image content.
type Result struct {
	Data  any
	Text  string
	Image *Image
	// Rows are the items Text lists, as values, for the Go API (which
	// decodes them into its own types); MCP and the CLI send Text instead.
	Rows any
	// SessionReset says the browser was restarted before this call: tabs,
	// refs and page state from before are gone.
	SessionReset bool
}

// Image is encoded image data.
type Image struct {
	Data     []byte
	MIMEType string
}

// A result reaches a client in two forms. The text, which a model reads,
// is the same compact form as a snapshot: a few `key: value` lines, then
// a blank line and the lines themselves (an action's element changes, a
// snapshot, page text), with no JSON quoting in the way. The structure,
// for programs, is the data as a JSON object (MCP structuredContent),
// where an action's changes.elements is a list of lines and the raw text,
// if any, is "text".

// changesOutputSchema is the output schema of a tool that reports
// changes: an object whose changes.elements is a list of lines. It says
// no more, to keep tools/list small (core too carries it); other members
// are allowed, and "properties" alone says changes is an object.
func changesOutputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"changes": {Properties: map[string]*jsonschema.Schema{
			"elements": {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
		}},
	}}
}

// Render returns the result's text form (see above). A nested object is
// written as dotted keys (dialog.type: confirm); a list of objects as one
// line per item under its key; a list of plain values as compact JSON.
func (r *Result) Render() (string, error) {
	text, _, err := r.Encode()
	return text, err
}

// Encode returns both forms of the result: the text (see [Result.Render])
// and the structure as a JSON object, ready to send as MCP
// structuredContent: its data (a value that is no object comes as
// "result"), with changes.elements split into lines, the raw text as
// "text", and sessionReset when the browser was restarted. The data is
// encoded once for both, and the structure is never decoded into maps
// only to be encoded again: a call pays for its result once.
func (r *Result) Encode() (text string, structured json.RawMessage, err error) {
	var raw json.RawMessage
	if r.Data != nil {
		if raw, err = encode(r.Data); err != nil {
			return "", nil, err
		}
	}
	var fields []member // the data's members; nil when it is no object
	if bytes.HasPrefix(raw, []byte("{")) {
		fields = members(raw)
	}
	return r.text(raw, fields), r.structure(raw, fields), nil
}

// text is Render's work on the encoded data.
func (r *Result) text(raw json.RawMessage, fields []member) string {
	var head strings.Builder
	var body []string
	if r.SessionReset {
		head.WriteString("sessionReset: true\n")
	}
	if raw != nil && fields == nil && !bytes.HasPrefix(raw, []byte("{")) {
		head.WriteString("result: " + string(raw) + "\n")
	}
	for _, f := range fields {
		if f.key == "changes" && bytes.HasPrefix(f.raw, []byte("{")) {
			// The changes are the result's own lines: the element
			// changes join the body.
			for _, c := range members(f.raw) {
				if c.key == "elements" {
					body = append(body, strings.TrimRight(c.str(), "\n"))
					continue
				}
				writeMember(&head, "", c)
			}
			continue
		}
		writeMember(&head, "", f)
	}
	if r.Text != "" {
		body = append(body, strings.TrimRight(r.Text, "\n"))
	}
	text := strings.TrimSuffix(head.String(), "\n")
	body = slices.DeleteFunc(body, func(s string) bool { return s == "" })
	if len(body) > 0 {
		if text != "" {
			text += "\n\n"
		}
		text += strings.Join(body, "\n")
	}
	return text
}

// structure is Encode's structured form, written from the encoded data's
// members in their order.
func (r *Result) structure(raw json.RawMessage, fields []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	add := func(key string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := encode(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if raw != nil && fields == nil && !bytes.HasPrefix(raw, []byte("{")) {
		add("result", raw)
	}
	for _, f := range fields {
		switch {
		case f.key == "text" && r.Text != "", f.key == "sessionReset" && r.SessionReset:
			continue // replaced below
		case f.key == "changes" && bytes.HasPrefix(f.raw, []byte("{")):
			add(f.key, changesStructure(f.raw))
		default:
			add(f.key, f.raw)
		}
	}
	if r.Text != "" {
		t, _ := encode(r.Text)
		add("text", t)
	}
	if r.SessionReset {
		add("sessionReset", []byte("true"))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// changesStructure is a changes object with its elements, a string of
// lines, as a list of lines.
func changesStructure(raw json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, c := range members(raw) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := encode(c.key)
		b.Write(k)
		b.WriteByte(':')
		if c.key == "elements" && bytes.HasPrefix(c.raw, []byte(`"`)) {
			lines, _ := encode(Lines(c.str()))
			b.Write(lines)
			continue
		}
		b.Write(c.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Lines splits text into its lines, without the trailing newline; empty
// text has none.
func Lines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return []string{}
	}
	return strings.Split(text, "\n")
}

// encode is json.Marshal without HTML escaping, which would turn < > &
// into \u003c… in the DOM text and URLs an agent reads.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// member is one member of a JSON object, in its order.
type member struct {
	key string
	raw json.RawMessage
}

// str is the member's value as text: a string as it is, anything else as
// compact JSON.
func (m member) str() string {
	var s string
	if json.Unmarshal(m.raw, &s) == nil {
		return s
	}
	return string(m.raw)
}

// members lists an object's members in their order.
func members(raw json.RawMessage) []member {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, member{key, v})
	}
	return out
}

// writeMember writes one member as `key: value` line(s) under prefix.
func writeMember(b *strings.Builder, prefix string, m member) {
	key := prefix + m.key
	switch {
	case bytes.HasPrefix(m.raw, []byte("{")):
		for _, c := range members(m.raw) {
			writeMember(b, key+".", c)
		}
	case bytes.HasPrefix(m.raw, []byte("[")):
		var items []json.RawMessage
		json.Unmarshal(m.raw, &items)
		if len(items) == 0 || !bytes.HasPrefix(items[0], []byte("{")) {
			b.WriteString(key + ": " + string(compact(m.raw)) + "\n")
			return
		}
		b.WriteString(key + ":\n")
		for _, it := range items {
			var parts []string
			for _, c := range members(it) {
				parts = append(parts, c.key+": "+oneLine(c.str()))
			}
			b.WriteString("- " + strings.Join(parts, ", ") + "\n")
		}
	default:
		s := m.str()
		if strings.Contains(s, "\n") {
			b.WriteString(key + ":\n")
			for _, l := range Lines(s) {
				b.WriteString("  " + l + "\n")
			}
			return
		}
		b.WriteString(key + ": " + s + "\n")
	}
}

// oneLine keeps a value of a list item on its line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// compact removes insignificant space from JSON.
func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
