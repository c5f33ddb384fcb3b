// Package snapshot turns an accessibility tree into the compact text an
// agent reads: one line per node, `e12 button "Submit" disabled`, with
// refs that stay put across snapshots of the same document, and a line diff
// between two snapshots. It is pure logic: internal/browser fetches the tree
// and owns the ref table.
package snapshot

import "strings"

// Node is one accessibility node, independent of CDP.
type Node struct {
	Role     string // ARIA or Chromium role, e.g. "button", "StaticText"
	Name     string // accessible name
	Value    string // current value of a field
	Ignored  bool   // ignored for accessibility: not printed, children are
	Children []*Node

	// State. Only true flags are printed.
	Checked  string // "true", "false", "mixed" or ""
	Disabled bool
	Expanded bool
	Selected bool
	Required bool
	Focused  bool
	// Focusable: it can take keyboard focus (tabindex, contenteditable, a
	// control). Never printed; an element a keyboard reaches is kept
	// where a pointer-only one may be left out (rowChrome).
	Focusable bool
	Readonly  bool
	Level     int    // heading level
	URL       string // link target, printed only with Options.URLs
	Password  bool   // a password field: its value is never printed
	// Live marks an aria-live region (polite or assertive): what appears
	// in it is a message to the user.
	Live bool

	// Clickable marks an element a user can click although its role does
	// not say so (a click listener, cursor:pointer, tabindex, contenteditable):
	// it is actionable and printed as "clickable" with its text as name.
	Clickable bool

	// Key identifies the DOM node for the ref table; nil means no DOM node
	// (no ref can be given).
	Key any
}

// role returns the role as printed: Chromium-specific roles mapped to the
// ARIA role an agent knows.
func (n *Node) role() string {
	if n.Clickable && !interactiveRoles[n.Role] && !pointRoles[n.Role] {
		return "clickable"
	}
	switch n.Role {
	case "DisclosureTriangle":
		return "button"
	case "Iframe", "IframePresentational":
		return "iframe"
	case "RootWebArea", "WebArea":
		return "document"
	}
	return n.Role
}

// interactiveRoles are the roles an agent acts on.
var interactiveRoles = set("button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox",
	"listbox", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
	"spinbutton", "treeitem", "DisclosureTriangle", "ColorWell", "date", "dateTime", "InputTime",
	"PopUpButton", "ToggleButton")

// messageRoles are regions whose text is a message to the user (an
// <output> is a status). Interactive snapshots print them with their
// text, so that an action's changes show the message it brought.
var messageRoles = set("alert", "status", "log")

// message reports whether n is a region whose text is a message to the
// user, and the role to print it with.
func (n *Node) message() (string, bool) {
	switch {
	case messageRoles[n.Role]:
		return n.Role, true
	case n.Live && !n.interactive():
		return "status", true
	}
	return "", false
}

// pointRoles keep their role when they are also clickable (a draggable
// list item prints as listitem, not clickable): the role says more.
var pointRoles = set("listitem", "heading", "row", "cell", "gridcell", "columnheader", "rowheader", "img",
	"image", "article")

// structuralRoles are printed even without a name in default mode, because
// they tell an agent where it is.
var structuralRoles = set("banner", "navigation", "main", "contentinfo", "complementary", "search",
	"form", "dialog", "alertdialog", "alert", "status", "heading", "list", "listitem", "table", "row",
	"cell", "columnheader", "rowheader", "gridcell", "grid", "tablist", "tabpanel", "menu", "menubar",
	"toolbar", "tree", "article", "figure", "Iframe", "IframePresentational", "img", "image", "progressbar",
	"meter")

// collapsedRoles are never printed; their children move up. A named region
// or group is printed (see shows).
var collapsedRoles = set("generic", "none", "presentation", "LabelText", "paragraph", "Section",
	"group", "region", "Div", "Pre", "blockquote", "code", "emphasis", "strong", "subscript",
	"superscript", "time", "mark", "Abbr", "Ruby", "LineBreak", "ListMarker", "InlineTextBox",
	"MenuListPopup", "Canvas", "Legend", "DescriptionList", "term", "definition", "insertion",
	"deletion", "Caption", "FigureCaption", "Details", "Summary", "ContentDeletion", "ContentInsertion",
	"RootWebArea", "WebArea")

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// fieldRoles show their value and hide their children (the editor's text).
var fieldRoles = set("textbox", "searchbox", "combobox", "spinbutton", "slider")

func (n *Node) interactive() bool { return interactiveRoles[n.Role] || n.Clickable }

func (n *Node) isText() bool { return n.Role == "StaticText" }

// normalize collapses runs of white space and trims.
func normalize(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
