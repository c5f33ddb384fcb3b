package tools

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// pageOrigins returns list_pages' origin and openerId of each tab, by id.
func pageOrigins(t *testing.T, h *harness) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for _, p := range h.mustCall(t, "list_pages", `{}`)["pages"].([]any) {
		p := p.(map[string]any)
		opener, _ := p["openerId"].(string)
		out[p["id"].(string)] = [2]string{p["origin"].(string), opener}
	}
	return out
}

// TestOriginSaysWhatOpenedTheTab: list_pages says who opened a tab that
// no agent opened with new_page: cdpkit itself (a scope's first tab, a
// launched browser's first tab) or a page (a link with target=_blank,
// naming the tab it came from), on every backend; issue 39: both were
// "unknown".
func TestOriginSaysWhatOpenedTheTab(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<title>opener</title><a id="pop" href="/popup" target="_blank">open</a>`)
	})
	mux.HandleFunc("/popup", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `<title>popup</title><p>hi`) })
	url := browsertest.ServerHandler(t, mux).URL

	eachBackend(t, func(t *testing.T, backend string) {
		h, _ := leased(t, backendHarness(t, backend))
		h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, url+"/"))
		pages := pageOrigins(t, h)
		if len(pages) != 1 {
			t.Fatalf("pages %v, want the scope's one tab", pages)
		}
		var firstID string
		for id, o := range pages {
			firstID = id
			if o[0] != "cdpkit" {
				t.Errorf("the tab cdpkit opened for the first call has origin %q, want cdpkit", o[0])
			}
		}
		h.mustCall(t, "click", `{"selector":"#pop"}`)
		var popup string
		browsertest.Eventually(t, time.Minute, func() error {
			for id := range pageOrigins(t, h) {
				if id != firstID {
					popup = id
					return nil
				}
			}
			return errors.New("no popup yet")
		})
		if got := pageOrigins(t, h)[popup]; got != [2]string{"page", firstID} {
			t.Errorf("the popup's origin, openerId = %q, want page and %s", got, firstID)
		}
		opened := h.mustCall(t, "new_page", `{}`)["id"].(string)
		if got := pageOrigins(t, h)[opened][0]; got != "agent" {
			t.Errorf("new_page's tab has origin %q, want agent", got)
		}
	})
	t.Run("launched", func(t *testing.T) {
		t.Parallel()
		h, _ := leased(t, newHarness(t, &harnessOptions{Browser: &browser.Options{}}))
		for id, o := range pageOrigins(t, h) {
			if o[0] != "cdpkit" {
				t.Errorf("the first tab %s of a browser cdpkit launched has origin %q, want cdpkit", id, o[0])
			}
		}
	})
}
