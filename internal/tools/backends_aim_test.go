package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// shiftSite serves a page whose layout shifts as soon as it scrolls (a
// banner grows 120 px above the button at each scroll event, as lazy
// content and cookie bars do); on /replace the button is rendered anew
// instead. The click's own scrolling into view sets it off. Scroll
// anchoring is off, as on pages whose growing content is the anchor or
// in view: the button really moves.
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
addEventListener('scroll', () => { %s; });
</script></body></html>`, shift)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBackendsClickAfterLayoutShift: the layout moves the button as the
// click scrolls it into view; the click still lands on the button.
func TestBackendsClickAfterLayoutShift(t *testing.T) {
	t.Parallel()
	site := shiftSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`"}`)
		ref := backendsRef(t, h, `button "Go"`)
		h.mustCall(t, "click", `{"uid":"`+ref+`"}`)
		got := h.mustCall(t, "evaluate_script", `{"function":"() => go.textContent + (banner.offsetHeight > 0 ? ', moved' : ', never moved')"}`)["value"]
		if got != "clicked, moved" {
			t.Errorf("after the click the page says %q, want the button clicked after it moved (\"clicked, moved\")", got)
		}
	})
}

// TestBackendsClickAfterRerender: the button is replaced by a copy as the
// click scrolls it into view; the click fails with REF_STALE rather than
// clicking whatever is where the button was.
func TestBackendsClickAfterRerender(t *testing.T) {
	t.Parallel()
	site := shiftSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/replace"}`)
		ref := backendsRef(t, h, `button "Go"`)
		_, err := h.result(t, "click", `{"uid":"`+ref+`"}`)
		wantCode(t, err, RefStale, ref)
	})
}

// aimSite serves pages whose elements are clickable only in part or only
// once they stop moving. On /slide, the button lies under a veil until
// the page scrolls, which makes it slide out from under the veil for
// 300 ms: the scroll of the click's own aim starts the slide, so the
// click finds the button covered and moving, however loaded the machine.
// On /partly, the button is covered at its centre and right half, and
// another lies wholly under a lid.
func aimSite(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body := `<div style="height:1500px">above</div>
<div style="position:relative;height:200px">
<button id="save" style="position:absolute;left:20px;top:40px;width:80px;height:30px;transition:transform 300ms ease-out" onclick="window.saved = true">Save</button>
<div id="veil" style="position:absolute;left:0;top:20px;width:160px;height:80px;background:#888"></div>
</div>
<div style="height:1500px">below</div>
<script>addEventListener('scroll', () => { save.style.transform = 'translateX(400px)'; }, {once: true});</script>`
		if r.URL.Path == "/partly" {
			body = `<button id="one" style="position:absolute;left:40px;top:40px;width:120px;height:40px" onclick="window.one = true">ONE</button>
<button id="two" style="position:absolute;left:90px;top:30px;width:120px;height:60px">TWO</button>
<button id="stuck" style="position:absolute;left:40px;top:200px;width:120px;height:40px" onclick="window.stuck = true">Stuck</button>
<div id="lid" style="position:absolute;left:20px;top:190px;width:200px;height:60px;background:#444"></div>`
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>aim</title></head><body style="margin:0">%s</body></html>`, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBackendsClickWaitsForMovingElement: the button starts sliding out
// from under a veil as the click scrolls it into view; the click waits
// for it to come to rest and lands on it, on every backend.
func TestBackendsClickWaitsForMovingElement(t *testing.T) {
	t.Parallel()
	site := aimSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/slide"}`)
		h.mustCall(t, "click", `{"selector":"#save"}`)
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => window.saved === true"}`)["value"]; got != true {
			t.Errorf("clicking the sliding button: its click handler ran = %v, want true", got)
		}
	})
}

// TestBackendsClickPartlyCovered: a button covered at its centre is
// clicked at a point of it that is not; one covered whole is refused with
// ELEMENT_NOT_CLICKABLE naming what covers it, on every backend.
func TestBackendsClickPartlyCovered(t *testing.T) {
	t.Parallel()
	site := aimSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/partly"}`)
		h.mustCall(t, "click", `{"selector":"#one"}`)
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => window.one === true"}`)["value"]; got != true {
			t.Errorf("clicking the partly covered button: its click handler ran = %v, want true", got)
		}
		_, err := h.result(t, "click", `{"selector":"#stuck","waitMs":200}`)
		wantCode(t, err, ElementNotClickable, "covered by div#lid")
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => window.stuck === true"}`)["value"]; got != false {
			t.Errorf("after the refused click the covered button's handler ran = %v, want false", got)
		}
	})
}
