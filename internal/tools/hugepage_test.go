package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHugePageStaysUsable checks issue #25 item 20 through the tools: on a
// real page of 200,000 nodes, take_snapshot answers before its deadline
// with the truncated marker, a scoped snapshot reads its part, and a click
// (whose changes diff snapshots) still works.
func TestHugePageStaysUsable(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (a 100,000-node page): skipped by -short")
	}
	t.Parallel()
	var page strings.Builder
	page.WriteString(`<!doctype html><title>huge</title><nav><button onclick="document.title='clicked'">Go</button></nav><main>`)
	for i := range 100_000 {
		fmt.Fprintf(&page, "<p>line %d</p>", i)
	}
	page.WriteString("</main>")
	base := hostilePages(t, map[string]string{"huge": page.String()})
	h := newHarness(t, nil)
	const budget = 30 * time.Second
	withBudget := func(args string) string {
		return strings.TrimSuffix(args, "}") + fmt.Sprintf(`,"timeout_ms":%d}`, budget.Milliseconds())
	}
	// Loading the page is not what is tested: it gets all the time a
	// loaded machine needs.
	if _, err := h.call(t, "navigate_page", fmt.Sprintf(`{"url":%q,"timeout_ms":120000}`, base+"/huge")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	text := h.mustCallText(t, "take_snapshot", withBudget(`{"maxChars":2000}`))
	if took := time.Since(start); took >= budget {
		t.Errorf("take_snapshot ended at its deadline (%v)", took)
	}
	if !strings.Contains(text, "truncated: the page has 100") || !strings.Contains(text, "scope") {
		t.Errorf("take_snapshot of the huge page = %s, want the node-budget marker", text)
	}
	if text := h.mustCallText(t, "take_snapshot", withBudget(`{"scope":"nav"}`)); !strings.Contains(text, `button "Go"`) {
		t.Errorf("scoped take_snapshot = %s, want the button", text)
	}
	if _, err := h.call(t, "click", withBudget(`{"selector":"nav button"}`)); err != nil {
		t.Errorf("click on the huge page: %v", err)
	}
}
