package snapshot

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// el builds a node with a DOM key so it can get a ref.
func el(role, name string, kids ...*Node) *Node {
	n := &Node{Role: role, Name: name, Children: kids}
	n.Key = n
	return n
}

func text(s string) *Node { return &Node{Role: "StaticText", Name: s} }

func ignored(kids ...*Node) *Node { return &Node{Role: "none", Ignored: true, Children: kids} }

// formPage mirrors the accessibility tree Chromium 156 returns for a small
// sign-in form (see internal/browser's golden tests for the real thing).
func formPage() *Node {
	email := el("textbox", "Email", &Node{Role: "generic", Children: []*Node{text("a@b.c")}})
	email.Value, email.Required = "a@b.c", true
	pw := el("textbox", "Password")
	pw.Value, pw.Password = "hunter2", true
	remember := el("checkbox", "Remember me")
	remember.Checked = "true"
	sel := el("combobox", "", el("MenuListPopup", "", el("option", "One"), el("option", "Two")))
	sel.Value = "Two"
	submit := el("button", "Submit", text("Submit"))
	submit.Disabled = true
	h1 := el("heading", "Sign in", text("Sign in"))
	h1.Level = 1
	home := el("link", "Home", text("Home"))
	home.URL = "http://x/home"
	return &Node{Role: "RootWebArea", Name: "Form", Children: []*Node{
		ignored(ignored(
			el("banner", "", el("navigation", "", home, text(" "), el("link", "About us", text("About us")))),
			el("main", "",
				h1,
				el("paragraph", "", text("Please enter your details. "), text("It takes a minute.")),
				el("form", "",
					el("LabelText", "", text("Email "), email),
					pw,
					ignored(remember, ignored()),
					sel,
					submit,
					ignored(el("generic", "", text("Nested text"))),
					el("list", "",
						el("listitem", "", el("ListMarker", "• "), text("one")),
						el("listitem", "", el("ListMarker", "• "), text("two"))),
					el("DisclosureTriangle", "More", text("More")),
				),
				el("paragraph", "", text(strings.Repeat("long text ", 20))),
			),
		)),
	}}
}

// counter gives refs in first-seen order, like the browser's ref table.
func counter() RefFunc {
	refs := map[any]string{}
	return func(n *Node) string {
		if r, ok := refs[n.Key]; ok {
			return r
		}
		refs[n.Key] = fmt.Sprintf("e%d", len(refs)+1)
		return refs[n.Key]
	}
}

func TestFormatGolden(t *testing.T) {
	tests := []struct {
		name string
		o    Options
	}{
		{"form.golden", Options{}},
		{"form_interactive.golden", Options{Interactive: true}},
		{"form_urls_depth2.golden", Options{URLs: true, Depth: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, Format(formPage(), counter(), tt.o).Text)
		})
	}
}

func TestFormatNeverPrintsPasswords(t *testing.T) {
	r := Format(formPage(), counter(), Options{})
	if strings.Contains(r.Text, "hunter2") {
		t.Errorf("snapshot shows a password value:\n%s", r.Text)
	}
}

func TestFormatTruncates(t *testing.T) {
	var kids []*Node
	for i := range 5000 {
		kids = append(kids, el("button", fmt.Sprintf("Button %d", i)))
	}
	r := Format(&Node{Role: "RootWebArea", Children: kids}, counter(), Options{MaxChars: 1000})
	if !r.Truncated || len(r.Text) > 1000+200 {
		t.Fatalf("Truncated = %v, len = %d; want truncated near 1000", r.Truncated, len(r.Text))
	}
	last := r.Text[strings.LastIndex(strings.TrimSuffix(r.Text, "\n"), "\n")+1:]
	if !strings.HasPrefix(last, "… truncated: ") || !strings.Contains(last, "filePath") {
		t.Errorf("last line = %q, want the truncation marker with a hint", last)
	}
	if len(r.Lines) != 5000 {
		t.Errorf("Lines = %d, want all 5000 kept for files and diffs", len(r.Lines))
	}
}

func TestFormatEmpty(t *testing.T) {
	if r := Format(nil, nil, Options{}); r.Text != "" || r.Truncated {
		t.Errorf("Format(nil) = %+v, want empty", r)
	}
}

func TestFormatInteractiveMessages(t *testing.T) {
	alert := el("alert", "", text("Please choose a size"))
	empty := el("status", "")
	live := el("generic", "", text("Saved"))
	live.Live = true
	root := &Node{Role: "RootWebArea", Children: []*Node{
		el("button", "Add to cart", text("Add to cart")), alert, empty, live,
	}}
	n := 0
	ref := func(*Node) string { n++; return fmt.Sprintf("e%d", n) }
	got := Format(root, ref, Options{Interactive: true}).Text
	want := "e1 button \"Add to cart\"\ne2 alert \"Please choose a size\"\ne3 status \"Saved\"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for line, want := range map[string]string{
		`e2 alert "Please choose a size"`: `alert "Please choose a size"`,
		`status "Saved"`:                  `status "Saved"`,
		`e1 button "Add to cart"`:         "",
		`e4 status`:                       "",
	} {
		if got, _ := Message(line); got != want {
			t.Errorf("Message(%s) = %q, want %q", line, got, want)
		}
	}
}

// TestFormatRowChrome: a data grid puts an unnamed, empty element with a
// mouse listener (a column resize handle) beside each cell of every row.
// They carry no name and no text, the row and its cells have refs of their
// own, and printing them doubled a Tabulator grid's lines; they are left
// out. An empty clickable elsewhere (in a list item), one with content, or
// one a keyboard reaches is kept.
func TestFormatRowChrome(t *testing.T) {
	handle := func() *Node { n := el("generic", ""); n.Clickable = true; return n }
	focused := handle()
	focused.Focused = true
	tabbable := handle()
	tabbable.Focusable = true
	icon := el("generic", "", el("image", ""))
	icon.Clickable = true
	row := func(name string, kids ...*Node) *Node { return el("row", name, kids...) }
	cell := func(name string) *Node { return el("gridcell", name, text(name)) }
	root := &Node{Role: "RootWebArea", Children: []*Node{
		el("grid", "",
			row("Name City", el("columnheader", "Name", text("Name")), handle(), el("columnheader", "City", text("City")), handle()),
			row("Ada Oslo", cell("Ada"), handle(), cell("Oslo"), handle()),
			row("Bob Lima", cell("Bob"), focused, cell("Lima"), icon, tabbable)),
		el("list", "", el("listitem", "Buy milk", text("Buy milk"), handle())),
	}}
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{}, `e1 grid
  e2 row "Name City"
    e3 columnheader "Name"
    e4 columnheader "City"
  e5 row "Ada Oslo"
    e6 gridcell "Ada"
    e7 gridcell "Oslo"
  e8 row "Bob Lima"
    e9 gridcell "Bob"
    e10 clickable focused
    e11 gridcell "Lima"
    e12 clickable
      e13 image
    e14 clickable
list
  e15 listitem "Buy milk"
    e16 clickable
`},
		{Options{Interactive: true}, `e1 clickable focused
e2 clickable
e3 clickable
e4 clickable
`},
	} {
		if got := Format(root, counter(), tt.o).Text; got != tt.want {
			t.Errorf("Interactive=%v: got\n%s\nwant\n%s", tt.o.Interactive, got, tt.want)
		}
	}
}
