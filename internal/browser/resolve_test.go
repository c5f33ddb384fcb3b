package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// openTabs opens one tab per path of srv, navigated there, in order.
func openTabs(t *testing.T, srv *fixtures, paths ...string) (*Browser, []*Tab) {
	t.Helper()
	var b *Browser
	var tabs []*Tab
	for _, p := range paths {
		var tab *Tab
		b, tab = newTab(t)
		if _, err := tab.Navigate(t.Context(), srv.URL+p); err != nil {
			t.Fatalf("Navigate %s: %v", p, err)
		}
		tabs = append(tabs, tab)
	}
	return b, tabs
}

// indexOf returns the index Pages gives tab, or -1.
func indexOf(t *testing.T, b *Browser, id string) int {
	t.Helper()
	pages, err := b.Pages(t.Context())
	if err != nil {
		t.Fatalf("Pages: %v", err)
	}
	for _, p := range pages {
		if p.ID == id {
			return p.Index
		}
	}
	return -1
}

func TestResolve(t *testing.T) {
	srv := serveFixtures(t)
	b, tabs := openTabs(t, srv, "/alpha.html", "/bravo.html", "/charlie.html")
	alpha, bravo, charlie := tabs[0], tabs[1], tabs[2]

	pages, err := b.Pages(t.Context())
	if err != nil {
		t.Fatalf("Pages: %v", err)
	}
	// The shared browser has tabs of its own (at least its first
	// about:blank), so learn where ours are rather than assume 0..2.
	var idx []int
	for _, tab := range tabs {
		i := indexOf(t, b, tab.ID())
		if i < 0 {
			t.Fatalf("Pages does not list tab %s: %+v", tab.ID(), pages)
		}
		idx = append(idx, i)
	}
	if !slices.IsSorted(idx) {
		t.Errorf("indexes of tabs in opening order = %v, want ascending", idx)
	}
	for i, p := range pages {
		if p.Index != i {
			t.Errorf("pages[%d].Index = %d, want %d", i, p.Index, i)
		}
		if wantActive := p.ID == charlie.ID(); p.Active != wantActive {
			t.Errorf("pages[%d] (%s) Active = %v, want %v", i, p.URL, p.Active, wantActive)
		}
	}

	tests := []struct {
		selector string
		want     *Tab
	}{
		{"", charlie}, // the last opened is active
		{"active", charlie},
		{fmt.Sprintf("index:%d", idx[0]), alpha},
		{fmt.Sprintf("index:%d", idx[1]), bravo},
		{fmt.Sprintf("index:%d", idx[2]), charlie},
		{"url:" + srv.URL + "/bravo.html", bravo},
		{"url:/alpha", alpha},
		{"url:charlie.html", charlie},
		{"title:Alpha", alpha},
		{"title:Bravo page", bravo},
		{"title:Charl", charlie},
		{string(alpha.ID()), alpha},
		{string(bravo.ID()), bravo},
		{string(charlie.ID()), charlie},
	}
	for _, tt := range tests {
		got, err := b.Resolve(t.Context(), tt.selector)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.selector, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = tab %s, want %s", tt.selector, got.ID(), tt.want.ID())
		}
	}

	// The same id always gives the same *Tab, so its session is reused.
	if got, _ := b.Resolve(t.Context(), string(alpha.ID())); got != alpha {
		t.Errorf("Resolve by id returned a new *Tab for an existing tab")
	}

	notFound := []string{
		fmt.Sprintf("index:%d", len(pages)),
		"index:9999",
		"url:nomatch-8f3a",
		"title:nomatch-8f3a",
		"0123456789ABCDEF0123456789ABCDEF",
		"unknown-id",
	}
	for _, sel := range notFound {
		_, err := b.Resolve(t.Context(), sel)
		if !errors.Is(err, driver.ErrTargetNotFound) {
			t.Errorf("Resolve(%q) err = %v, want one matching ErrTargetNotFound", sel, err)
			continue
		}
		var tnf *driver.TargetNotFoundError
		if !errors.As(err, &tnf) {
			t.Errorf("Resolve(%q) err = %T, want *TargetNotFoundError", sel, err)
			continue
		}
		if tnf.Selector != sel || tnf.Open != len(pages) {
			t.Errorf("Resolve(%q) err = %+v, want Selector %q, Open %d", sel, tnf, sel, len(pages))
		}
	}

	invalid := []string{"index:x", "index:-1", "index:", "index:1.5", "url:", "title:", "bogus:thing", ":x"}
	for _, sel := range invalid {
		_, err := b.Resolve(t.Context(), sel)
		if !errors.Is(err, driver.ErrInvalidSelector) {
			t.Errorf("Resolve(%q) err = %v, want one matching ErrInvalidSelector", sel, err)
		}
		if errors.Is(err, driver.ErrTargetNotFound) {
			t.Errorf("Resolve(%q) err = %v also matches ErrTargetNotFound", sel, err)
		}
	}
}

func TestNewTabAndActivate(t *testing.T) {
	srv := serveFixtures(t)
	b, tabs := openTabs(t, srv, "/alpha.html", "/bravo.html")
	alpha, bravo := tabs[0], tabs[1]

	checkActive(t, b, bravo) // NewTab made the last one active

	if err := b.Activate(t.Context(), alpha); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	checkActive(t, b, alpha)

	_, blank := newTab(t)
	checkActive(t, b, blank)
	loc, err := blank.Location(t.Context())
	if err != nil {
		t.Fatalf("Location: %v", err)
	}
	if loc.URL != "about:blank" {
		t.Errorf("new tab is at %q, want about:blank", loc.URL)
	}
}

// checkActive checks that "active" resolves to want and that Pages marks
// exactly want as active.
func checkActive(t *testing.T, b *Browser, want *Tab) {
	t.Helper()
	got, err := b.Resolve(t.Context(), "active")
	if err != nil {
		t.Fatalf("Resolve(active): %v", err)
	}
	if got != want {
		t.Errorf("Resolve(active) = %s, want %s", got.ID(), want.ID())
	}
	pages, err := b.Pages(t.Context())
	if err != nil {
		t.Fatalf("Pages: %v", err)
	}
	var active []string
	for _, p := range pages {
		if p.Active {
			active = append(active, p.ID)
		}
	}
	if len(active) != 1 || active[0] != want.ID() {
		t.Errorf("Pages marks %v active, want [%s]", active, want.ID())
	}
}

// TestCloseActiveTab closes the active tab and checks that "active" moves
// to a tab that is still open, and that Pages forgets the closed one at once
// (Target.closeTarget answers before the target is gone).
func TestCloseActiveTab(t *testing.T) {
	srv := serveFixtures(t)
	for i := range 3 { // the race with Chromium's teardown needs a few tries
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			b, tabs := openTabs(t, srv, "/alpha.html", "/bravo.html", "/charlie.html")
			closed := tabs[2]
			checkActive(t, b, closed)

			if err := b.CloseTab(t.Context(), closed); err != nil {
				t.Fatalf("CloseTab: %v", err)
			}
			pages, err := b.Pages(t.Context())
			if err != nil {
				t.Fatalf("Pages: %v", err)
			}
			for _, p := range pages {
				if p.ID == closed.ID() {
					t.Errorf("Pages right after CloseTab lists the closed tab: %+v", p)
				}
			}
			got, err := b.Resolve(t.Context(), "active")
			if err != nil {
				t.Fatalf("Resolve(active) after closing the active tab: %v", err)
			}
			if got.ID() == closed.ID() {
				t.Fatalf("Resolve(active) = the closed tab %s", closed.ID())
			}
			if !slices.ContainsFunc(pages, func(p driver.Page) bool { return p.ID == got.ID() }) {
				t.Errorf("Resolve(active) = %s, which Pages does not list", got.ID())
			}
			if _, err := got.Location(t.Context()); err != nil {
				t.Errorf("Location of the new active tab: %v", err)
			}
			if _, err := b.Resolve(t.Context(), string(closed.ID())); !errors.Is(err, driver.ErrTargetNotFound) {
				t.Errorf("Resolve(closed id) err = %v, want ErrTargetNotFound", err)
			}
			// Closing it again fails rather than touching another tab.
			ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
			defer cancel()
			if err := b.CloseTab(ctx, closed); err == nil {
				t.Errorf("second CloseTab of the same tab succeeded")
			}
		})
	}
}
