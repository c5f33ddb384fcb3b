package browser

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestOpenTabBackground(t *testing.T) {
	b, front := newTab(t)
	back, err := b.OpenTab(t.Context(), &driver.TabOptions{Background: true})
	if err != nil {
		t.Fatalf("OpenTab(background): %v", err)
	}
	t.Cleanup(func() { closeTab(t, b, back) })
	checkActive(t, b, front)
	if i := indexOf(t, b, back.ID()); i < 0 {
		t.Errorf("the background tab is not listed")
	}
	// A background tab works: it loads pages.
	srv := serveNav(t)
	if got, err := back.Navigate(t.Context(), srv.URL+"/nav-one.html"); err != nil || got.Title != "One" {
		t.Errorf("Navigate in the background tab = %+v, %v; want title One", got, err)
	}
	checkActive(t, b, front)

	fg, err := b.OpenTab(t.Context(), nil)
	if err != nil {
		t.Fatalf("OpenTab: %v", err)
	}
	t.Cleanup(func() { closeTab(t, b, fg) })
	checkActive(t, b, fg)
}

func TestSelectAndActivate(t *testing.T) {
	b, first := newTab(t)
	_, second := newTab(t)
	checkActive(t, b, second)
	b.Select(first)
	checkActive(t, b, first)
	if err := b.Activate(t.Context(), second); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	checkActive(t, b, second)
}

// TestCloseTabBeforeUnload closes a tab whose page asks to confirm
// leaving: the close is bounded whatever the page does.
func TestCloseTabBeforeUnload(t *testing.T) {
	srv := serveNav(t)
	b, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/nav-one.html", nil)
	// The user gesture gives the page the activation a beforeunload
	// prompt needs.
	navEval(t, tab, "addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = 'stay'; }); true", nil)
	// The prompt must not hold CloseTab to the caller's deadline.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := b.CloseTab(ctx, tab); err != nil {
		t.Errorf("CloseTab: %v", err)
	}
}

// waitNewPage waits until Pages lists a tab not in before, and returns it.
func waitNewPage(t *testing.T, b *Browser, before []driver.Page) driver.Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	for {
		pages, err := b.Pages(ctx)
		if err != nil {
			t.Fatalf("Pages: %v", err)
		}
		for _, p := range pages {
			if !slices.ContainsFunc(before, func(q driver.Page) bool { return q.ID == p.ID }) {
				return p
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no new tab appeared within %v; pages: %+v", waitLimit, pages)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestPagesListsOpenedTabs checks that a tab a page opens, by a
// target=_blank link or by window.open, is listed and can be used.
func TestPagesListsOpenedTabs(t *testing.T) {
	srv := serveNav(t)
	tests := []struct {
		name      string
		click     string
		wantPath  string
		wantTitle string
	}{
		{"target=_blank link", "document.getElementById('blank').click()", "/nav-one.html", "One"},
		{"window.open popup", "document.getElementById('popup').click()", "/nav-two.html", "Two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, tab := newTab(t)
			mustNav(t, tab, srv.URL+"/nav-links.html", nil)
			before, err := b.Pages(t.Context())
			if err != nil {
				t.Fatalf("Pages: %v", err)
			}
			navEval(t, tab, tt.click, nil)
			p := waitNewPage(t, b, before)
			opened := b.tab(tabID(p.ID))
			t.Cleanup(func() { closeTab(t, b, opened) })
			checkActive(t, b, tab)

			// Its URL may still be about:blank at first; wait for the page.
			ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
			defer cancel()
			for {
				loc, err := opened.Location(ctx)
				if err != nil {
					t.Fatalf("Location of the opened tab: %v", err)
				}
				if loc.URL == srv.URL+tt.wantPath && loc.Title == tt.wantTitle {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("the opened tab is at %+v, want %s %q", loc, tt.wantPath, tt.wantTitle)
				case <-time.After(20 * time.Millisecond):
				}
			}
			got, err := b.Resolve(t.Context(), "url:"+tt.wantPath)
			if err != nil || got.ID() != p.ID {
				t.Errorf("Resolve(url:%s) = %v, %v; want the opened tab %s", tt.wantPath, got, err, p.ID)
			}
		})
	}
}
