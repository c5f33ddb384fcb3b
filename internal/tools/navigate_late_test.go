package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestNavigateChangesSeeLoadHandlers checks that navigate_page's changes
// show what the new page adds in its load handler and in a zero-delay
// timer that handler starts: navigate does not settle after the load it
// waited for, so the snapshot must still come after such a timer.
func TestNavigateChangesSeeLoadHandlers(t *testing.T) {
	pages := map[string]string{
		"in-load":  `addEventListener("load", () => add("Late button"))`,
		"timer":    `addEventListener("load", () => setTimeout(() => add("Late button"), 0))`,
		"dcl-then": `addEventListener("DOMContentLoaded", () => setTimeout(() => add("Late button"), 0))`,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/late", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Late %s</title><h1>Late</h1><script>
function add(text) { const b = document.createElement("button"); b.textContent = text; document.body.append(b) }
%s
</script>`, r.URL.Query().Get("n"), pages[r.URL.Query().Get("case")])
	})
	srv := browsertest.ServerHandler(t, mux)
	t.Parallel()
	h := newHarness(t, nil)
	for name := range pages {
		t.Run(name, func(t *testing.T) {
			for i := range 4 { // each a new document: the summary lists it whole
				got := h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":"%s/late?case=%s&n=%d"}`, srv.URL, name, i))
				c, _ := got["changes"].(map[string]any)
				if els := fmt.Sprint(c["elements"]); !strings.Contains(els, `button "Late button"`) {
					t.Errorf("run %d: navigate_page changes = %q, want the button the page added after load", i, els)
				}
			}
		})
	}
}
