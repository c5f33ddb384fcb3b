package driver

import (
	"errors"
	"testing"
)

func TestParseTabSelector(t *testing.T) {
	pages := []Page{
		{ID: "A", URL: "http://x.test/alpha.html", Title: "Alpha"},
		{ID: "B", URL: "http://x.test/bravo.html", Title: "Bravo", Active: true},
		{ID: "C", URL: "http://x.test/charlie.html", Title: "Charlie"},
	}
	tests := []struct {
		sel  string
		want string // the ID of the first page it matches; "" for none
	}{
		{"", "B"},
		{"active", "B"},
		{"index:0", "A"},
		{"index:2", "C"},
		{"index:3", ""},
		{"url:bravo", "B"},
		{"url:.html", "A"},
		{"url:BRAVO", ""}, // case-sensitive
		{"title:Charlie", "C"},
		{"title:charlie", ""},
		{"C", "C"},
		{"Z", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := ParseTabSelector(tt.sel)
			if err != nil {
				t.Fatalf("ParseTabSelector(%q): %v", tt.sel, err)
			}
			got := ""
			for i, p := range pages {
				if s.Match(i, p) {
					got = p.ID
					break
				}
			}
			if got != tt.want {
				t.Errorf("ParseTabSelector(%q) matches %q, want %q", tt.sel, got, tt.want)
			}
		})
	}
}

func TestParseTabSelectorInvalid(t *testing.T) {
	for _, sel := range []string{"index:x", "index:-1", "index:", "index:1.5", "url:", "title:", "bogus:thing", ":x"} {
		if _, err := ParseTabSelector(sel); !errors.Is(err, ErrInvalidSelector) {
			t.Errorf("ParseTabSelector(%q) = %v, want ErrInvalidSelector", sel, err)
		}
	}
}

func TestTabSelectorKinds(t *testing.T) {
	for _, tt := range []struct {
		sel               string
		active, byContent bool
	}{
		{"", true, false}, {"active", true, false}, {"index:1", false, false},
		{"url:x", false, true}, {"title:x", false, true}, {"ID", false, false},
	} {
		s, err := ParseTabSelector(tt.sel)
		if err != nil {
			t.Fatal(err)
		}
		if s.Active() != tt.active || s.ByContent() != tt.byContent {
			t.Errorf("%q: Active %v ByContent %v, want %v %v", tt.sel, s.Active(), s.ByContent(), tt.active, tt.byContent)
		}
	}
}

// FuzzParseTabSelector: any string either parses or fails with
// ErrInvalidSelector, and a parsed selector matches without panicking.
func FuzzParseTabSelector(f *testing.F) {
	for _, s := range []string{"", "active", "index:0", "url:x", "title:y", "ID", "index:-1", ":x", "url:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sel string) {
		s, err := ParseTabSelector(sel)
		if err != nil {
			if !errors.Is(err, ErrInvalidSelector) {
				t.Fatalf("ParseTabSelector(%q) = %v, want ErrInvalidSelector", sel, err)
			}
			return
		}
		s.Match(0, Page{ID: sel, URL: sel, Title: sel})
	})
}
