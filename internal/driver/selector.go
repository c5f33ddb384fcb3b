package driver

import (
	"fmt"
	"strconv"
	"strings"
)

// TabSelector is a parsed tab selector, as Driver.TabIn takes it: "active"
// (or ""), "index:N" (the Nth tab in the order they were opened),
// "url:SUBSTR" and "title:SUBSTR" (the first tab whose URL or title
// contains SUBSTR, case-sensitively), or a tab ID. Both backends resolve
// selectors through it.
type TabSelector struct {
	kind string // "active", "index", "url", "title" or "id"
	n    int    // with index
	arg  string // with url, title and id
}

// ParseTabSelector parses sel; a malformed one is an error wrapping
// ErrInvalidSelector.
func ParseTabSelector(sel string) (TabSelector, error) {
	kind, arg, hasArg := strings.Cut(sel, ":")
	if !hasArg {
		if sel == "" || sel == "active" {
			return TabSelector{kind: "active"}, nil
		}
		return TabSelector{kind: "id", arg: sel}, nil
	}
	switch kind {
	case "index":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return TabSelector{}, fmt.Errorf("%w: %q: index must be a number ≥ 0", ErrInvalidSelector, sel)
		}
		return TabSelector{kind: "index", n: n}, nil
	case "url", "title":
		if arg == "" {
			return TabSelector{}, fmt.Errorf("%w: %q: empty %s substring", ErrInvalidSelector, sel, kind)
		}
		return TabSelector{kind: kind, arg: arg}, nil
	}
	return TabSelector{}, fmt.Errorf("%w: %q: use active, index:N, url:SUBSTR, title:SUBSTR or a tab id", ErrInvalidSelector, sel)
}

// Active reports whether the selector names the active tab.
func (s TabSelector) Active() bool { return s.kind == "active" }

// ByContent reports whether the selector matches on a page's URL or
// title, which a backend may need to read from the browser first.
func (s TabSelector) ByContent() bool { return s.kind == "url" || s.kind == "title" }

// Match reports whether p, the i-th of the tabs in view, is the one s
// selects. For "active" it reports p.Active.
func (s TabSelector) Match(i int, p Page) bool {
	switch s.kind {
	case "active":
		return p.Active
	case "index":
		return i == s.n
	case "url":
		return strings.Contains(p.URL, s.arg)
	case "title":
		return strings.Contains(p.Title, s.arg)
	}
	return p.ID == s.arg
}
