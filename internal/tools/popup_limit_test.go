package tools

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestMaxTabsCountsPopups checks that tabs a session's pages open
// (target=_blank) count against its tab limit: the excess is closed and
// reported in an action's changes, and the session never has more tabs
// open than its limit: with a limit of 2, the first popup is kept and the
// other four are closed.
func TestMaxTabsCountsPopups(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>links</title>`)
		for i := range 5 {
			fmt.Fprintf(w, `<p><a id=l%d href="/p%d" target="_blank">popup %d</a>`, i, i, i)
		}
	})
	site := browsertest.ServerHandler(t, mux).URL
	h := newHarness(t, nil)
	h.scope = driver.NewScope(&driver.ScopeOptions{Isolate: true, MaxTabs: 2})
	h.env.Scope = h.scope
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site))

	refused := map[string]bool{}
	note := func(d map[string]any) {
		list, _ := jsonPath(d, "changes.tabsRefused").([]any)
		for _, x := range list {
			p := x.(map[string]any)
			refused[fmt.Sprint(p["id"])] = true
		}
		if len(list) > 0 && jsonPath(d, "changes.tabsRefusedHint") == nil {
			t.Errorf("changes %v report refused tabs without a hint", jsonPath(d, "changes"))
		}
	}
	for i := range 5 {
		note(h.mustCall(t, "click", fmt.Sprintf(`{"selector":"#l%d","target":"index:0"}`, i)))
	}
	browsertest.Eventually(t, 30*time.Second, func() error {
		d := h.mustCall(t, "press_key", `{"key":"Shift","target":"index:0"}`)
		note(d)
		pages, err := h.browser(t).PagesIn(t.Context(), h.scope)
		if err != nil {
			return err
		}
		all, err := h.browser(t).PagesIn(t.Context(), nil)
		if err != nil {
			return err
		}
		open := 0
		for _, p := range all {
			if refused[p.ID] {
				open++
			}
		}
		if len(pages) > 2 || len(refused) != 4 || open > 0 {
			return fmt.Errorf("the session has %d tabs (limit 2); %d popups reported refused, %d of them still open", len(pages), len(refused), open)
		}
		return nil
	})
}
