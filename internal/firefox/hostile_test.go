package firefox

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// hostilePage replaces, in its own world, the functions a hidden-text
// filter and a text reader call: every box is on the page, nothing is
// aria-hidden or invisible, every element's text is the page's, and JSON
// says what the page wants.
const hostilePage = `<!doctype html><title>override</title>
<script>
const box = {x: 10, y: 10, left: 10, top: 10, width: 100, height: 100, right: 110, bottom: 110};
Element.prototype.getBoundingClientRect = function () { return box; };
Element.prototype.getClientRects = function () { return [box]; };
Element.prototype.checkVisibility = function () { return true; };
Element.prototype.getAttribute = function () { return null; };
window.getComputedStyle = function () { return {display: "block", visibility: "visible", overflowX: "visible", overflowY: "visible", position: "static"}; };
Object.defineProperty(HTMLElement.prototype, "innerText", {get() { return "PAGE-REWROTE-THIS"; }});
const stringify = JSON.stringify;
JSON.stringify = function (v) { return stringify(v).replaceAll("Real heading", "PAGE-REWROTE-JSON"); };
</script>
<h1>Real heading</h1>
<p>VISIBLE-TEXT</p>
<p aria-hidden="true">HIDDEN-ARIA</p>
<p style="display:none">HIDDEN-DISPLAY-NONE</p>
<p style="visibility:hidden">HIDDEN-VISIBILITY</p>`

// TestHiddenFilterIgnoresPageFunctions checks issue 40 item 8: the
// snapshot's hidden-text filter and get_text run in a sandbox, where
// what the page did to its own prototypes and globals does not reach
// them: hidden text stays out, and the heading reads as it is.
func TestHiddenFilterIgnoresPageFunctions(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, hostilePage)
	}))
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	text, err := tab.Text(ctx, driver.TextOptions{})
	if err != nil {
		t.Fatalf("Text: %v", err)
	}
	for what, got := range map[string]string{"snapshot": snap.Text, "text": text.Text} {
		for _, want := range []string{"Real heading", "VISIBLE-TEXT"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %s:\n%s", what, want, got)
			}
		}
		for _, bad := range []string{"PAGE-REWROTE", "HIDDEN-"} {
			if strings.Contains(got, bad) {
				t.Errorf("%s shows %s:\n%s", what, bad, got)
			}
		}
	}
}

// TestClickIgnoresPageFunctions: click's aim (its wait for the element to
// come to rest and come clear, and its hit tests) runs in the sandbox, so
// a page that stops its own frames and timers, and lies about boxes and
// hits, neither stalls nor misleads it.
func TestClickIgnoresPageFunctions(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>stubs</title>
<button id="b" style="margin:40px" onclick="document.title = 'clicked'">Go</button>
<script>
window.requestAnimationFrame = () => 0;
window.setTimeout = () => 0;
Element.prototype.getClientRects = () => [];
Document.prototype.elementFromPoint = () => document.body;
</script>`)
	}))
	tab := newTab(t)
	// A bound on a hang, not on speed: the stall this guards against
	// lasts as long as the call's context.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := tab.Navigate(ctx, srv.URL); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	if _, err := tab.Click(ctx, driver.ClickOptions{Selector: "#b"}); err != nil {
		t.Fatalf("Click: %v", err)
	}
	if got, err := tab.Evaluate(ctx, "() => document.title", nil, driver.EvalLimits{Depth: 2, Items: 10, Chars: 100}); err != nil || string(got.Value) != `"clicked"` {
		t.Errorf("after the click the title is %v, %v; want clicked", got, err)
	}
}
