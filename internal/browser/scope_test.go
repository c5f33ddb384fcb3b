package browser

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"slices"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// scopeFixture serves /set (sets a cookie), /show (the Cookie header as the
// title) and /opener (a page whose button opens a popup).
func scopeFixture(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		fmt.Fprint(w, "<title>set</title>")
	})
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>cookie=%s</title>", html.EscapeString(r.Header.Get("Cookie")))
	})
	mux.HandleFunc("/opener", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<a id="blank" href="/show?blank" target="_blank">new tab</a>
<button id="popup" onclick="window.open('/show?popup', 'p', 'width=400,height=300')">popup</button>`)
	})
	return browsertest.ServerHandler(t, mux).URL
}

// scopePages returns the ids of the pages s sees.
func scopePages(t *testing.T, b *Browser, s *driver.Scope) []string {
	t.Helper()
	pages, err := b.PagesIn(t.Context(), s)
	if err != nil {
		t.Fatalf("PagesIn: %v", err)
	}
	var ids []string
	for i, p := range pages {
		if p.Index != i {
			t.Errorf("page %s has index %d, want %d (indexes count within the scope)", p.ID, p.Index, i)
		}
		ids = append(ids, p.ID)
	}
	return ids
}

// newScope returns a scope of the shared browser closed when the test ends.
func newScope(t *testing.T, isolate bool) (*Browser, *driver.Scope) {
	b := sharedBrowser(t)
	s := driver.NewScope(&driver.ScopeOptions{Isolate: isolate})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		b.CloseScope(ctx, s)
	})
	return b, s
}

func TestScopesSeeOnlyTheirTabs(t *testing.T) {
	base := scopeFixture(t)
	b, a := newScope(t, false)
	_, c := newScope(t, false)
	ctx := t.Context()

	// A scope without tabs gets one for "active"; list it by index.
	ta, err := b.ResolveIn(ctx, a, "")
	if err != nil {
		t.Fatalf("ResolveIn(a, active) with no tabs: %v", err)
	}
	tc, err := b.OpenTab(ctx, &driver.TabOptions{Scope: c})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scopePages(t, b, a), []string{ta.ID()}; !slices.Equal(got, want) {
		t.Errorf("scope a sees %v, want %v", got, want)
	}
	if got, want := scopePages(t, b, c), []string{tc.ID()}; !slices.Equal(got, want) {
		t.Errorf("scope c sees %v, want %v", got, want)
	}
	if got, want := b.ScopeOf(ta), a; got != want {
		t.Errorf("ScopeOf(a's tab) = %p, want %p", got, want)
	}
	// The unscoped view still sees every tab.
	if all := scopePages(t, b, nil); !slices.Contains(all, ta.ID()) || !slices.Contains(all, tc.ID()) {
		t.Errorf("unscoped view %v misses a scoped tab", all)
	}

	for _, sel := range []string{string(tc.ID()), "index:1", "url:about:blank#nope"} {
		_, err := b.ResolveIn(ctx, a, sel)
		var tnf *driver.TargetNotFoundError
		if !errors.As(err, &tnf) {
			t.Errorf("ResolveIn(a, %q) = %v, want a TargetNotFoundError", sel, err)
		}
	}
	for _, sel := range []string{"", "active", "index:0", string(ta.ID())} {
		got, err := b.ResolveIn(ctx, a, sel)
		if err != nil || got.ID() != ta.ID() {
			t.Errorf("ResolveIn(a, %q) = %v, %v; want a's tab", sel, got, err)
		}
	}

	// A second tab becomes a's active one; selecting the first switches
	// back, and c's active tab does not move.
	ta2, err := b.OpenTab(ctx, &driver.TabOptions{Scope: a})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := b.ResolveIn(ctx, a, "active"); got == nil || got.ID() != ta2.ID() {
		t.Errorf("a's active tab is %v, want the new one", got)
	}
	b.Select(ta)
	if got, _ := b.ResolveIn(ctx, a, "active"); got == nil || got.ID() != ta.ID() {
		t.Errorf("after Select, a's active tab is %v, want the first", got)
	}
	if got, _ := b.ResolveIn(ctx, c, "active"); got == nil || got.ID() != tc.ID() {
		t.Errorf("c's active tab is %v, want its own", got)
	}

	// The tabs a tab of a opens, by a target=_blank link (no opener) or
	// by window.open, are a's.
	if _, err := ta.Navigate(ctx, base+"/opener"); err != nil {
		t.Fatal(err)
	}
	mine := []string{ta.ID(), ta2.ID()}
	for _, click := range []string{"blank", "popup"} {
		navEval(t, ta, "document.getElementById('"+click+"').click()", nil)
		var opened string
		err := browsertest.Poll(waitLimit, func() error {
			for _, id := range scopePages(t, b, a) {
				if !slices.Contains(mine, id) {
					opened = id
					return nil
				}
			}
			return fmt.Errorf("the tab a's %s opened is not among a's tabs", click)
		})
		if err != nil {
			t.Error(err)
			continue
		}
		mine = append(mine, opened)
		if slices.Contains(scopePages(t, b, c), opened) {
			t.Errorf("the tab a's %s opened is among c's tabs", click)
		}
	}

	// Closing a scope closes its tabs, and it opens no more.
	b.CloseScope(ctx, a)
	var all []string
	browsertest.Poll(waitLimit, func() error { // the check below reports what is left
		all = scopePages(t, b, nil)
		if slices.ContainsFunc(mine, func(id string) bool { return slices.Contains(all, id) }) {
			return errors.New("tabs of the closed scope are open")
		}
		return nil
	})
	for _, id := range mine {
		if slices.Contains(all, id) {
			t.Errorf("tab %s of the closed scope is still open", id)
		}
	}
	if _, err := b.OpenTab(ctx, &driver.TabOptions{Scope: a}); !errors.Is(err, driver.ErrScopeClosed) {
		t.Errorf("OpenTab in a closed scope = %v, want ErrScopeClosed", err)
	}
	if !slices.Contains(all, tc.ID()) {
		t.Errorf("closing scope a closed c's tab")
	}
}

func TestIsolatedScopesHaveTheirOwnCookies(t *testing.T) {
	base := scopeFixture(t)
	tests := []struct {
		isolate bool
		want    string // the title the second scope sees
	}{
		{false, "cookie=who=first"},
		{true, "cookie="},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("isolate=%v", tt.isolate), func(t *testing.T) {
			b, first := newScope(t, tt.isolate)
			_, second := newScope(t, tt.isolate)
			ctx := t.Context()
			t1, err := b.ResolveIn(ctx, first, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := t1.Navigate(ctx, base+"/set?v=first"); err != nil {
				t.Fatal(err)
			}
			t2, err := b.ResolveIn(ctx, second, "")
			if err != nil {
				t.Fatal(err)
			}
			nav, err := t2.Navigate(ctx, base+"/show")
			if err != nil {
				t.Fatal(err)
			}
			if nav.Title != tt.want {
				t.Errorf("second scope sees title %q, want %q", nav.Title, tt.want)
			}
			// The first scope still sees its own cookie.
			nav, err = t1.Navigate(ctx, base+"/show")
			if err != nil {
				t.Fatal(err)
			}
			if want := "cookie=who=first"; nav.Title != want {
				t.Errorf("first scope sees title %q, want %q", nav.Title, want)
			}
			if !tt.isolate {
				// Do not leak the cookie into other tests of the shared
				// browser's default context.
				if _, err := t1.Navigate(ctx, base+"/set?v="); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
