package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// output is a tool result as the CLI sees it: the JSON data, the raw text
// that follows it (a snapshot), an image, or the tool's error.
type output struct {
	data    json.RawMessage // an object, or nil
	text    string
	image   *mcp.ImageContent
	savedTo string // where screenshot [path] put the capture
	render  string // the result's text form: `key: value` lines, then its lines
	err     *tools.Error
}

func readResult(res *mcp.CallToolResult) (*output, error) {
	o := &output{}
	var text string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if text == "" {
				text = c.Text
			}
		case *mcp.ImageContent:
			o.image = c
		}
	}
	if res.IsError {
		o.err = &tools.Error{Code: tools.Internal, Message: text}
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			var e tools.Error
			if json.Unmarshal(b, &e) == nil && e.Code != "" {
				o.err = &e
			}
		}
		return o, nil
	}
	// The structured content is the data; its "text" is the raw text (a
	// snapshot) and changes.elements the element lines, which a person
	// reads as text again.
	o.render = text
	if m, ok := res.StructuredContent.(map[string]any); ok {
		if s, ok := m["text"].(string); ok {
			o.text = s
			delete(m, "text")
		}
		if c, ok := m["changes"].(map[string]any); ok {
			if lines, ok := c["elements"].([]any); ok {
				var b strings.Builder
				for _, l := range lines {
					s, _ := l.(string)
					b.WriteString(s + "\n")
				}
				c["elements"] = b.String()
			}
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(m)
		o.data = bytes.TrimSpace(b.Bytes())
		return o, nil
	}
	o.text = text
	return o, nil
}

// maxSavedImage bounds the capture read back from the daemon's artifact
// dir: far over any screenshot cdpkit takes.
const maxSavedImage = 512 << 20

// saveScreenshot copies the full capture the daemon saved (or else the
// inline image) to path, through the writer the server uses: a path that
// is a symlink, a FIFO, a device or a hard-linked file is refused (as an
// UNSAFE_PATH *tools.Error), so the copy never writes through a planted
// link nor blocks; the file appears whole or not at all. ctx bounds the
// read.
func (o *output) saveScreenshot(ctx context.Context, path string) error {
	var d struct {
		Path string `json:"path"`
	}
	json.Unmarshal(o.data, &d)
	var img []byte
	if d.Path != "" {
		img, _ = policy.ReadRegular(ctx, d.Path, maxSavedImage)
	}
	if img == nil && o.image != nil {
		img = o.image.Data
	}
	if img == nil {
		return fmt.Errorf("the screenshot has no image to save")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("save screenshot: %w", err)
	}
	dir, err := policy.OpenArtifacts(filepath.Dir(abs))
	if err != nil {
		return fmt.Errorf("save screenshot: %w", err)
	}
	defer dir.Close()
	if _, err := dir.WriteFile(filepath.Base(abs), img); err != nil {
		return tools.AsError(err)
	}
	o.savedTo = abs
	return nil
}

// object is the result as one JSON object for --json: the tool's data in
// its own field order, then text, savedTo and sessionReset when set.
func (o *output) object(reset bool) json.RawMessage {
	var extra []field
	if o.text != "" {
		extra = append(extra, field{key: "text", value: o.text})
	}
	if o.savedTo != "" {
		extra = append(extra, field{key: "savedTo", value: o.savedTo})
	}
	b := bytes.TrimSpace(o.data)
	if len(b) == 0 {
		b = []byte("{}")
	}
	b = bytes.TrimSuffix(b, []byte("}"))
	var buf bytes.Buffer
	buf.Write(b)
	sep := len(bytes.TrimSpace(b)) > 1 // the object has members
	add := func(key string, v any) {
		if sep {
			buf.WriteByte(',')
		}
		sep = true
		k, _ := json.Marshal(key)
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(bytes.TrimSpace(vb.Bytes()))
	}
	for _, f := range extra {
		add(f.key, f.value)
	}
	if reset {
		add("sessionReset", true)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// printHuman prints the result for a person: a snapshot's text as is, tabs
// as a table, a screenshot's path, else one `key: value` line per field.
func (o *output) printHuman(w io.Writer, tool string) {
	switch tool {
	case "take_snapshot":
		if o.text != "" {
			fmt.Fprintln(w, strings.TrimRight(o.text, "\n"))
			return
		}
	case "list_pages":
		var d struct {
			Pages []struct {
				Index  int    `json:"index"`
				PageID int    `json:"pageId"`
				ID     string `json:"id"`
				URL    string `json:"url"`
				Title  string `json:"title"`
				Active bool   `json:"active"`
			} `json:"pages"`
		}
		if json.Unmarshal(o.data, &d) == nil {
			for _, p := range d.Pages {
				mark := " "
				if p.Active {
					mark = "*"
				}
				// pageId:N is a selector too, one that never shifts.
				fmt.Fprintf(w, "%s %d  pageId:%d  %s  %s  %s\n", mark, p.Index, p.PageID, p.ID, p.URL, p.Title)
			}
			return
		}
	case "take_screenshot":
		var d struct {
			Path   string `json:"path"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
		}
		json.Unmarshal(o.data, &d)
		path := d.Path
		if o.savedTo != "" {
			path = o.savedTo
		}
		fmt.Fprintf(w, "%s (%dx%d)\n", path, d.Width, d.Height)
		return
	}
	if o.render != "" {
		fmt.Fprintln(w, strings.TrimRight(o.render, "\n"))
		return
	}
	printFields(w, o.data, "")
	if o.text != "" {
		fmt.Fprintln(w, strings.TrimRight(o.text, "\n"))
	}
}

// printFields prints an object's members one per line, an object member
// as an indented block, a multi-line string as indented lines.
func printFields(w io.Writer, data json.RawMessage, indent string) {
	for _, f := range fields(data) {
		switch {
		case f.value == "{}" || f.value == "[]":
			continue // "changes: {}" says nothing
		case bytes.HasPrefix(f.raw, []byte("{")):
			fmt.Fprintf(w, "%s%s:\n", indent, f.key)
			printFields(w, f.raw, indent+"  ")
		case bytes.HasPrefix(f.raw, []byte(`"`)) && strings.Contains(f.value, "\n"):
			fmt.Fprintf(w, "%s%s:\n", indent, f.key)
			for line := range strings.Lines(strings.TrimRight(f.value, "\n")) {
				fmt.Fprintf(w, "%s  %s", indent, line)
			}
			fmt.Fprintln(w)
		default:
			fmt.Fprintf(w, "%s%s: %s\n", indent, f.key, f.value)
		}
	}
}

type field struct {
	key, value string
	raw        json.RawMessage
}

// fields lists an object's members in their order: strings as they are,
// other values as compact JSON.
func fields(data json.RawMessage) []field {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		out = append(out, field{key, s, raw})
	}
	return out
}

// Usage is the CLI section of `cdpkit help`, generated from the registry.
func Usage(all []tools.Tool) string {
	var b strings.Builder
	b.WriteString(`CLI (a background daemon per session keeps the browser, tabs and refs between calls):
  cdpkit [global flags] <command> [arguments] [--argName value ...]

Commands:
`)
	vs := verbs(all)
	for i := range vs {
		v := &vs[i]
		fmt.Fprintf(&b, "  %-26s %s (%s)\n", verbUsage(v), v.summary, v.tool)
	}
	fmt.Fprintf(&b, "  %-26s %s\n", "close", "stop the session's daemon and browser")
	fmt.Fprintf(&b, "  %-26s %s\n", "sessions", "list live sessions: name, pid, age, idle")
	b.WriteString(`
Every tool, by name: cdpkit <tool> --argName value ... | --params '{"argName": ...}'
`)
	for _, t := range all {
		fmt.Fprintf(&b, "  %-26s %s\n", t.Name, firstSentence(t.Description))
	}
	b.WriteString(`
Global flags:
  --session NAME     session to use (default: CDPKIT_SESSION, else "default")
  --json             print the result (or the error, on stderr) as one JSON object
  --timeout DUR      bound on the whole call, starting the daemon included; the tool is asked to stop
                     just before (default: the tool timeout + 10s, plus up to 10s to start the daemon)
  --timeout_ms MS    the tool's own deadline, as MCP's timeout_ms (the CLI waits a moment longer)
  --params '{…}'     the tool's arguments as one JSON object (--json '{…}' is the old spelling)
  --lease TOKEN      act on the tab this lease token holds (from cdpkit claim, claim_page or new_page --claim)
  -h, --help         help for a command: cdpkit click --help
  Flags of 'cdpkit daemon' (--allow-eval, --executable-path, --idle-timeout, and the
  launch options --headed, --user-data-dir, --viewport, --device, --user-agent,
  --proxy-server, --lang, --timezone …) apply when a call starts its session's daemon.

Files: a path given to a command (screenshot shot.png, record stop run.mp4) is relative to the
current directory and the file is put there; with no path it stays in the artifact dir
(CDPKIT_ARTIFACT_DIR) and its path is printed. A tool's own --filePath/--savePath name a file in
the artifact dir, which a process never overwrites unless it wrote that file itself.

Refs from a snapshot may be written e12 or @e12. Exit codes: 0 success;
1 the tool failed ("[CODE] message (hint: …)" on stderr); 2 a bad command line.
`)
	return b.String()
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return s
}

// help prints help for a command, or the CLI usage.
func help(stdout, stderr io.Writer, words []string, all []tools.Tool) int {
	if len(words) == 0 {
		fmt.Fprint(stdout, Usage(all))
		return 0
	}
	name := words[0]
	var v *verb
	tool := name
	if v = findVerb(name, all); v != nil {
		tool = v.tool
	}
	switch name {
	case "close":
		fmt.Fprintln(stdout, "Usage: cdpkit close [--session NAME]\n\nStop the session's daemon: its browser, tabs and refs.")
		return 0
	case "sessions":
		fmt.Fprintln(stdout, "Usage: cdpkit sessions [--json]\n\nList live sessions: name, pid, age and time since the last call.")
		return 0
	}
	if group := groupVerbs(name, all); len(group) > 0 {
		fmt.Fprintln(stdout, "Usage:")
		for _, second := range group {
			v := findVerb(name+" "+second, all)
			fmt.Fprintf(stdout, "  cdpkit %-24s %s (%s)\n", verbUsage(v), v.summary, v.tool)
		}
		fmt.Fprintf(stdout, "\nEach takes its tool's --argName value flags: cdpkit %s %s --help\n", name, group[0])
		return 0
	}
	i := slices.IndexFunc(all, func(t tools.Tool) bool { return t.Name == tool })
	if i < 0 {
		fmt.Fprintf(stderr, "[INVALID_ARGS] unknown command %q (hint: run 'cdpkit help')\n", name)
		return 2
	}
	fmt.Fprint(stdout, toolHelp(&all[i], v))
	return 0
}

// toolHelp documents a tool's CLI form from its schema.
func toolHelp(t *tools.Tool, v *verb) string {
	var b strings.Builder
	if v != nil {
		fmt.Fprintf(&b, "Usage: cdpkit %s [--argName value ...]\n", verbUsage(v))
		fmt.Fprintf(&b, "   or: cdpkit %s --argName value ...\n\n", t.Name)
	} else {
		fmt.Fprintf(&b, "Usage: cdpkit %s [--argName value ...] [--params '{...}']\n\n", t.Name)
	}
	fmt.Fprintf(&b, "%s\n", t.Description)
	props := t.InputSchema.Properties
	if len(props) == 0 {
		b.WriteString("\nNo arguments.\n")
		return b.String()
	}
	b.WriteString("\nArguments:\n")
	names := slices.Clone(t.InputSchema.PropertyOrder)
	for n := range props {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range names {
		s := props[n]
		if s == nil {
			continue
		}
		typ := schemaType(s)
		if typ == "array" && s.Items != nil {
			typ = schemaType(s.Items) + "[]"
		}
		req := ""
		if slices.Contains(t.InputSchema.Required, n) {
			req = " (required)"
		}
		desc := s.Description
		if n == "target" && desc == "" {
			desc = "tab: active (default), index:N, url:SUBSTR, title:SUBSTR or a tab id"
		}
		fmt.Fprintf(&b, "  --%-18s %-9s%s %s\n", n, typ, req, desc)
	}
	return b.String()
}
