package snapshot

import (
	"slices"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	prev := []string{
		`e1 main`,
		`  e2 button "Save"`,
		`  e3 textbox "Name" value="a"`,
		`  "Hello"`,
		`  "Same"`,
		`  e4 link "Gone"`,
	}
	cur := []string{
		`e1 main`,
		`  e2 button "Save" disabled`,
		`  e3 textbox "Name" value="a"`,
		`  "Same"`,
		`  "Saved!"`,
		`  e5 button "Undo"`,
	}
	got := Diff(prev, cur)
	want := Changes{
		Added:   []string{`"Saved!"`, `e5 button "Undo"`},
		Removed: []string{`"Hello"`, `e4 link "Gone"`},
		Changed: []string{`e2 button "Save" disabled`},
	}
	if got.Kept != 3 {
		t.Errorf("Kept = %d, want 3 (e1, e2, e3)", got.Kept)
	}
	if !slices.Equal(got.Added, want.Added) || !slices.Equal(got.Removed, want.Removed) || !slices.Equal(got.Changed, want.Changed) {
		t.Errorf("Diff =\n%+v\nwant\n%+v", got, want)
	}
	text := got.Text(0)
	for _, l := range []string{`~ e2 button "Save" disabled`, `+ e5 button "Undo"`, `- e4 link "Gone"`} {
		if !strings.Contains(text, l+"\n") {
			t.Errorf("Text() = %q, want a line %q", text, l)
		}
	}
	if empty := Diff(cur, cur); !empty.Empty() || empty.Text(0) != "" {
		t.Errorf("Diff of identical snapshots = %+v, want empty", empty)
	}
}

func TestDiffTextCap(t *testing.T) {
	var cur []string
	for range 100 {
		cur = append(cur, `"a line of some length"`)
	}
	c := Diff(nil, cur)
	text := c.Text(200)
	if len(text) > 260 || !strings.Contains(text, "more changes") {
		t.Errorf("Text(200) = %d bytes %q, want it cut with a count", len(text), text)
	}
}

func TestRefOf(t *testing.T) {
	for in, want := range map[string]string{
		`e12 button`: "e12", `e1`: "e1", `"e12 quoted"`: "", `eel "x"`: "", `e12x`: "", ``: "",
	} {
		if got := refOf(in); got != want {
			t.Errorf("refOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFind(t *testing.T) {
	lines := []string{
		`e1 main`,
		`  e2 form "Login"`,
		`    e3 button "Save"`,
		`    "Saved at 10:30"`,
		`  e4 link "Save as…"`,
		`e5 button "Other"`,
	}
	got, total := Find(lines, func(s string) bool { return strings.Contains(strings.ToLower(s), "save") }, 2)
	want := []Match{{`e3 button "Save"`, `e2 form "Login"`}, {`"Saved at 10:30"`, `e2 form "Login"`}}
	if total != 3 || !slices.Equal(got, want) {
		t.Errorf("Find = %v (total %d), want %v (total 3)", got, total, want)
	}
	got, _ = Find(lines, func(s string) bool { return strings.Contains(s, "Other") }, 5)
	if len(got) != 1 || got[0].Parent != "" {
		t.Errorf("Find of a top-level line = %v, want no parent", got)
	}
}

func TestInteractiveLines(t *testing.T) {
	lines := Format(formPage(), counter(), Options{}).Lines
	got := strings.Join(InteractiveLines(lines), "\n")
	want := strings.TrimSpace(Format(formPage(), counter(), Options{Interactive: true}).Text)
	// Refs differ between the two runs' counters, so compare without them.
	strip := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			_, rest, _ := strings.Cut(l, " ")
			out = append(out, rest)
		}
		return strings.Join(out, "\n")
	}
	if strip(got) != strip(want) {
		t.Errorf("InteractiveLines =\n%s\nwant the interactive snapshot's lines\n%s", got, want)
	}
}

func TestRefOfFolded(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`e5 link "Home"`, "e5"},
		{`listitem > e5 link "Home"`, "e5"},
		{`listitem > cell > e7 button "Go"`, "e7"},
		{`e5 link "a > b"`, "e5"},
		{`"text > e5 more"`, ""},
		{`heading "Sign in" level=1`, ""},
	} {
		if got := refOf(tc.line); got != tc.want {
			t.Errorf("refOf(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestDropBlurred: an element whose only change is losing focus (the
// field an action left) is dropped from an action's changes; one that
// also changed otherwise, or gained focus, stays (issue 39).
func TestDropBlurred(t *testing.T) {
	prev := []string{
		`e1 textbox "Email" focused value="ada"`,
		`e2 textbox "Name"`,
		`e3 button "Is focused" focused`,
		`e4 textbox "City" focused value="a"`,
	}
	cur := []string{
		`e1 textbox "Email" value="ada"`,
		`e2 textbox "Name" focused value="bob"`,
		`e3 button "Is focused"`,
		`e4 textbox "City" value="b"`,
	}
	c := Diff(prev, cur)
	if len(c.Changed) != 4 {
		t.Fatalf("Diff changed %q, want all four (a snapshot diff keeps every change)", c.Changed)
	}
	c.DropBlurred()
	want := []string{`e2 textbox "Name" focused value="bob"`, `e4 textbox "City" value="b"`}
	if !slices.Equal(c.Changed, want) {
		t.Errorf("after DropBlurred, changed = %q, want %q", c.Changed, want)
	}
	if c.Kept != 4 {
		t.Errorf("Kept = %d, want 4", c.Kept)
	}
}
