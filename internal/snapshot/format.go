package snapshot

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxChars bounds a snapshot's text when Options.MaxChars is zero:
// about 6,000 tokens, well under what MCP clients accept in one result.
const DefaultMaxChars = 24000

// maxText bounds one name, value or text line, in runes.
const maxText = 100

// maxOptions bounds the options listed inline for a closed select.
const maxOptions = 8

// Options choose what a snapshot shows.
type Options struct {
	Interactive bool // only actionable elements, each with its ref
	URLs        bool // print links' URLs
	Depth       int  // print at most this many levels; 0 means all
	MaxChars    int  // cut the text beyond this many bytes; 0 means DefaultMaxChars
}

// RefFunc returns the ref to print for a node, such as "e12", or "" for
// none. Format calls it once per printed element, in document order.
type RefFunc func(n *Node) string

// Result is a formatted snapshot.
type Result struct {
	Text      string   // what the agent reads, cut at MaxChars
	Truncated bool     // Text is cut; Lines has everything
	Lines     []string // every line, uncut, for files and diffs
	Refs      int      // elements printed with a ref
	// Unchecked says the reader's hidden-text check stopped short and
	// what it did not check is left out (set by the reader, not Format).
	Unchecked bool
}

// Format renders the tree under root. Nodes hidden from the accessibility
// tree are never printed; wrappers without meaning are collapsed.
func Format(root *Node, ref RefFunc, o Options) Result {
	if ref == nil {
		ref = func(*Node) string { return "" }
	}
	f := &formatter{o: o}
	var out []line
	if root != nil {
		out = f.walk(root, 0, "")
	}
	// Refs are issued here, once the lines are final, so that they follow
	// the printed order and an element folded away costs no number.
	r := Result{Lines: make([]string, len(out))}
	for i, l := range out {
		var b strings.Builder
		b.WriteString(strings.Repeat("  ", l.depth))
		for j, s := range l.segs {
			if j > 0 {
				b.WriteString(" > ")
			}
			if s.node != nil {
				if x := ref(s.node); x != "" {
					b.WriteString(x)
					b.WriteByte(' ')
					r.Refs++
				}
			}
			b.WriteString(s.text)
		}
		r.Lines[i] = b.String()
	}
	r.Text, r.Truncated = Cut(r.Lines, o.MaxChars)
	return r
}

// Cut joins lines, stopping before maxChars bytes (0 means DefaultMaxChars)
// with an explicit last line saying how much is missing.
func Cut(lines []string, maxChars int) (string, bool) {
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	var b strings.Builder
	for i, l := range lines {
		if b.Len()+len(l)+1 > maxChars {
			fmt.Fprintf(&b, "… truncated: %d more lines not shown (narrow it with scope, interactive:true or depth, or save it whole with filePath)\n", len(lines)-i)
			return b.String(), true
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String(), false
}

// line is one printed line: one segment, or several joined by " > "
// when unnamed wrappers fold onto the element they hold.
type line struct {
	depth int
	segs  []seg
	ref   bool // an element with a ref (not a text line)
	isTxt bool
}

// seg is one element's text on a line; node, when set, is given a ref
// in front of it.
type seg struct {
	node *Node
	text string
}

func textLine(depth int, t string) line {
	return line{depth: depth, segs: []seg{{text: t}}, isTxt: true}
}

type formatter struct {
	o Options
}

// walk returns the lines for n at depth; ctx is the name of the nearest
// printed ancestor, so text that only repeats it is dropped.
func (f *formatter) walk(n *Node, depth int, ctx string) []line {
	return f.walkIn(n, depth, ctx, "")
}

// walkIn is walk with the role of the nearest printed ancestor, so that a
// landmark directly inside the same landmark is printed once.
func (f *formatter) walkIn(n *Node, depth int, ctx, parentRole string) []line {
	if n.Ignored {
		return f.children(n, depth, ctx)
	}
	if n.isText() {
		return nil // children() handles text, merging runs of it
	}
	if parentRole == "row" && n.rowChrome() {
		return nil
	}
	if f.o.Depth > 0 && depth >= f.o.Depth {
		return nil
	}
	if f.o.Interactive {
		if role, ok := n.message(); ok && !n.interactive() {
			// A message region with text: what a person reads after an
			// action. Empty, it costs nothing.
			if t := textOf(n, 4*maxText); t != "" {
				head := f.describe(n, depth)
				head.segs[0].text = role
				if name := normalize(n.Name); name != "" && name != t {
					head.segs[0].text += " " + quote(name)
				}
				head.segs[0].text += " " + quote(t)
				return append([]line{head}, f.children(n, depth+1, t)...)
			}
		}
		if !n.interactive() {
			return f.children(n, depth, ctx)
		}
		out := []line{f.describe(n, depth)}
		if fieldRoles[n.Role] {
			return out
		}
		return append(out, f.children(n, depth+1, n.Name)...)
	}
	if !f.shows(n) || (n.Role == parentRole && normalize(n.Name) == "" && structuralRoles[n.Role]) {
		return f.childrenIn(n, depth, ctx, parentRole)
	}
	head := f.describe(n, depth)
	if fieldRoles[n.Role] {
		return []line{head}
	}
	kids := f.children(n, depth+1, normalize(n.Name))
	if (nameFromContent[n.Role] || n.Clickable) && normalize(n.Name) != "" {
		kids = dropText(kids)
	}
	// Fold a lone text child into an unnamed element: listitem "one".
	if normalize(n.Name) == "" && len(kids) == 1 && kids[0].isTxt {
		head.segs[0].text += " " + kids[0].segs[0].text
		return []line{head}
	}
	// Fold an unnamed wrapper around a lone element onto its line:
	// listitem > e5 link "Home". A wrapper that is not itself actionable
	// gives up its ref there: the element it holds is what an agent acts
	// on, and the line stays as short as it was.
	if !n.interactive() && normalize(n.Name) == "" && len(kids) == 1 && kids[0].ref {
		head.segs[0].node = nil
		head.segs = append(head.segs, kids[0].segs...)
		head.ref = true
		return []line{head}
	}
	return append([]line{head}, kids...)
}

// children returns the lines of n's children, merging each run of sibling
// text nodes into one line.
func (f *formatter) children(n *Node, depth int, ctx string) []line {
	return f.childrenIn(n, depth, ctx, n.Role)
}

func (f *formatter) childrenIn(n *Node, depth int, ctx, role string) []line {
	var out []line
	var run []string
	// flush emits the pending text run; next is the sibling that follows
	// it, whose name a label's text often repeats.
	flush := func(next *Node) {
		t := normalize(strings.Join(run, ""))
		run = run[:0]
		if t == "" || redundant(t, ctx) || (next != nil && next.interactive() && normalize(next.Name) == t) {
			return
		}
		if !f.o.Interactive && (f.o.Depth == 0 || depth < f.o.Depth) {
			out = append(out, textLine(depth, quote(t)))
		}
	}
	for _, c := range n.Children {
		if c.isText() && !c.Ignored {
			run = append(run, c.Name)
			continue
		}
		if t, ok := inlineText(c); ok {
			run = append(run, t)
			continue
		}
		flush(c)
		out = append(out, f.walkIn(c, depth, ctx, role)...)
	}
	flush(nil)
	return out
}

// nameFromContent are roles whose name is their text: text inside them
// only repeats the name.
var nameFromContent = set("button", "link", "heading", "tab", "option", "menuitem", "menuitemcheckbox",
	"menuitemradio", "checkbox", "radio", "switch", "treeitem", "DisclosureTriangle", "ToggleButton")

func dropText(lines []line) []line {
	out := lines[:0]
	for _, l := range lines {
		if !l.isTxt {
			out = append(out, l)
		}
	}
	return out
}

// inlineText returns the text of a collapsed inline wrapper, such as
// <code> or <strong>, whose descendants are all text, so it joins the
// surrounding run instead of splitting a sentence into lines.
func inlineText(n *Node) (string, bool) {
	if n.Clickable || n.Live || !collapsedRoles[n.Role] || blockRoles[n.Role] || (normalize(n.Name) != "" && !n.Ignored && (n.Role == "group" || n.Role == "region")) {
		return "", false
	}
	var b strings.Builder
	var walk func(*Node) bool
	walk = func(x *Node) bool {
		for _, c := range x.Children {
			switch {
			case c.isText():
				b.WriteString(c.Name)
			case collapsedRoles[c.Role] && !blockRoles[c.Role] && !c.Clickable && !c.Live:
				if !walk(c) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !walk(n) {
		return "", false
	}
	return b.String(), true
}

// rowChrome reports whether n, a child of a row, is the grid's chrome
// rather than a cell: clickable for a pointer only (not focusable), with
// no name and no content (a column's resize handle beside each cell of
// every row). The row and its cells have refs of their own;
// a line for each handle doubled a grid's snapshot and named nothing an
// agent could choose between.
func (n *Node) rowChrome() bool {
	if !n.Clickable || interactiveRoles[n.Role] || pointRoles[n.Role] || n.Focused || n.Focusable || normalize(n.Name) != "" {
		return false
	}
	var empty func(*Node) bool
	empty = func(x *Node) bool {
		for _, c := range x.Children {
			switch {
			case c.isText():
				if normalize(c.Name) != "" {
					return false
				}
			case !c.Ignored && !collapsedRoles[c.Role]:
				return false
			case !empty(c):
				return false
			}
		}
		return true
	}
	return empty(n)
}

// blockRoles are collapsed wrappers that start a new line of text.
var blockRoles = set("paragraph", "Div", "Pre", "blockquote", "Section", "LineBreak", "ListMarker",
	"DescriptionList", "term", "definition", "Caption", "FigureCaption", "Legend", "generic", "RootWebArea", "WebArea")

// shows reports whether n gets its own line in default mode.
func (f *formatter) shows(n *Node) bool {
	if n.interactive() || structuralRoles[n.Role] {
		return true
	}
	if collapsedRoles[n.Role] {
		// A named region or group is a landmark worth a line.
		return (n.Role == "region" || n.Role == "group") && normalize(n.Name) != ""
	}
	return normalize(n.Name) != ""
}

// describe renders n's own line: ref, role, name, true flags, value.
func (f *formatter) describe(n *Node, depth int) line {
	var b strings.Builder
	l := line{depth: depth}
	s := seg{}
	// Nothing acts on a landmark or a list: it keeps its line and costs
	// no ref. Headings, list items, rows, cells, images and frames keep
	// theirs: an agent points at them (a drag, a scope, a screenshot).
	if n.Key != nil && (n.interactive() || !noRefRoles[n.Role]) {
		s.node = n
		l.ref = true
	}
	b.WriteString(n.role())
	if name := normalize(n.Name); name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(name))
	}
	if n.Level > 0 && n.Role == "heading" {
		fmt.Fprintf(&b, " level=%d", n.Level)
	}
	switch n.Checked {
	case "true":
		b.WriteString(" checked")
	case "mixed":
		b.WriteString(" mixed")
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{
		{n.Disabled, "disabled"}, {n.Expanded, "expanded"}, {n.Selected, "selected"},
		{n.Required, "required"}, {n.Focused, "focused"}, {n.Readonly && fieldRoles[n.Role], "readonly"},
	} {
		if flag.on {
			b.WriteByte(' ')
			b.WriteString(flag.name)
		}
	}
	if fieldRoles[n.Role] && n.Value != "" {
		if n.Password {
			b.WriteString(" value=<hidden>")
		} else {
			b.WriteString(" value=" + quote(normalize(n.Value)))
		}
	}
	if n.Role == "combobox" && !n.Expanded {
		if opts := options(n); len(opts) > 0 {
			b.WriteString(" options=" + formatOptions(opts))
		}
	}
	if f.o.URLs && n.URL != "" && n.Role == "link" {
		b.WriteString(" url=" + n.URL)
	}
	s.text = b.String()
	l.segs = []seg{s}
	return l
}

// noRefRoles are the roles printed without a ref: structure that orients
// the agent but that no tool acts on.
var noRefRoles = set("banner", "navigation", "main", "contentinfo", "complementary", "region", "form",
	"search", "list", "group", "article", "paragraph", "separator")

// options collects the option names under a select-like combobox.
func options(n *Node) []string {
	var out []string
	var walk func(*Node)
	walk = func(x *Node) {
		for _, c := range x.Children {
			if c.Role == "option" {
				out = append(out, normalize(c.Name))
				continue
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

func formatOptions(opts []string) string {
	shown := opts
	if len(shown) > maxOptions {
		shown = shown[:maxOptions]
	}
	q := make([]string, len(shown))
	for i, o := range shown {
		q[i] = quote(o)
	}
	s := "[" + strings.Join(q, ",")
	if len(opts) > maxOptions {
		s += fmt.Sprintf(",…+%d", len(opts)-maxOptions)
	}
	return s + "]"
}

// Message returns a changes or snapshot line (with or without its ref)
// without the ref when it is a message region's (see messageRoles), as
// interactive snapshots print them: `status "Saved"`.
func Message(line string) (string, bool) {
	l := strings.TrimSpace(line)
	if r := refOf(l); r != "" && strings.HasPrefix(l, r+" ") {
		l = l[len(r)+1:]
	}
	role, _, _ := strings.Cut(l, " ")
	if !messageRoles[role] || !strings.Contains(l, `"`) {
		return "", false
	}
	return l, true
}

// redundant reports whether text only repeats the enclosing element's name.
func redundant(text, ctx string) bool {
	return ctx != "" && strings.Contains(ctx, text)
}

// quote cuts s to maxText runes and wraps it in double quotes.
func quote(s string) string {
	if utf8.RuneCountInString(s) > maxText {
		r := []rune(s)
		s = string(r[:maxText-1]) + "…"
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
