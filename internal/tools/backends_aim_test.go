package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// shiftSite serves a page whose layout shifts right after an element is
// scrolled into view (a banner grows above it, as lazy content and
// cookie bars do), before anything else can run: the page wraps
// scrollIntoView and grows the banner by 120 px in a microtask after
// each call. Scroll anchoring is off, as on pages whose growing content
// is the anchor or in view: the button really moves.
func shiftSite(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		shift := `banner.style.height = banner.offsetHeight + 120 + 'px'`
		if r.URL.Path == "/replace" {
			// The button is rendered again, as frameworks do: the old
			// one is gone.
			shift = `go.replaceWith(go.cloneNode(true))`
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>shift</title></head><body style="margin:0;overflow-anchor:none">
<div id="banner" style="height:0;background:#fc0"></div>
<div style="height:1500px">above</div>
<button id="go" style="display:block;height:40px;width:200px" onclick="this.textContent = 'clicked'">Go</button>
<div style="height:1500px">below</div>
<script>
const scrollIntoView = Element.prototype.scrollIntoView;
Element.prototype.scrollIntoView = function (...args) {
	scrollIntoView.apply(this, args);
	queueMicrotask(() => { %s; });
};
</script></body></html>`, shift)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBackendsClickAfterLayoutShift: the layout moves the button 120 px
// between the moment the click finds where the button is and the moment
// the pointer goes down; the click still lands on the button.
func TestBackendsClickAfterLayoutShift(t *testing.T) {
	t.Parallel()
	site := shiftSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`"}`)
		ref := backendsRef(t, h, `button "Go"`)
		h.mustCall(t, "click", `{"uid":"`+ref+`"}`)
		got := h.mustCall(t, "evaluate_script", `{"function":"() => go.textContent"}`)["value"]
		if got != "clicked" {
			t.Errorf("after the click the button says %q, want \"clicked\"", got)
		}
	})
}

// TestBackendsClickAfterRerender: the button is replaced by a copy between
// the moment the click finds it and the moment the pointer goes down; the
// click fails with REF_STALE rather than clicking whatever is there.
func TestBackendsClickAfterRerender(t *testing.T) {
	t.Parallel()
	site := shiftSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/replace"}`)
		ref := backendsRef(t, h, `button "Go"`)
		if _, err := h.result(t, "click", `{"uid":"`+ref+`"}`); err != nil {
			wantCode(t, err, RefStale, ref)
			return
		}
		// A backend that aims from where the page's scripts cannot
		// intervene (Chromium's isolated world) clicks the button before
		// it is replaced.
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => go.textContent"}`)["value"]; got != "clicked" {
			t.Errorf("the click succeeded, but the button says %q, want \"clicked\"", got)
		}
	})
}
