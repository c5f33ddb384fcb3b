package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// drag, scroll, resize_page and emulate on every backend.

func pointerSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><head><title>pointer</title></head><body style=\"margin:0\">"+body+"</body></html>")
		}
	}
	mux.HandleFunc("/drag.html", page(`
		<div id="src" style="position:absolute;left:20px;top:20px;width:60px;height:60px;background:#c33">src</div>
		<div id="dst" style="position:absolute;left:300px;top:200px;width:100px;height:100px;background:#3c3">dst</div>
		<div id="card" draggable="true" style="position:absolute;left:20px;top:400px;width:60px;height:40px;background:#33c">card</div>
		<div id="bin" style="position:absolute;left:300px;top:400px;width:100px;height:60px;background:#999">bin</div>
		<p id="log" style="position:absolute;top:500px"></p>
		<script>
		let down = false;
		src.addEventListener('mousedown', () => { down = true; });
		document.addEventListener('mouseup', e => {
			if (down && document.elementsFromPoint(e.clientX, e.clientY).includes(dst)) log.dataset.mouse = 'dropped';
			down = false;
		});
		card.addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'card'));
		bin.addEventListener('dragover', e => e.preventDefault());
		bin.addEventListener('drop', e => { e.preventDefault(); log.dataset.html5 = e.dataTransfer.getData('text/plain'); });
		</script>`))
	mux.HandleFunc("/tall.html", page(`<div style="height:5000px">top</div><button id="far">Far</button><div style="height:3000px"></div>`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBackendsDrag: a drag on mouse events and an HTML5 drag both drop.
func TestBackendsDrag(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/drag.html"}`)
		h.mustCall(t, "drag", `{"from_selector":"#src","to_selector":"#dst"}`)
		h.mustCall(t, "drag", `{"from_selector":"#card","to_selector":"#bin"}`)
		got := h.mustCall(t, "evaluate_script", `{"function":"() => (log.dataset.mouse || '-') + ' ' + (log.dataset.html5 || '-')"}`)["value"]
		if got != "dropped card" {
			t.Errorf("after the drags the page logged %q, want the mouse drop and the HTML5 drop of card", got)
		}
	})
}

// TestBackendsScroll: scroll down moves the page; scroll to an element
// brings it into view.
func TestBackendsScroll(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/tall.html"}`)
		d := h.mustCall(t, "scroll", `{"direction":"down","pixels":300}`)
		if d["scrollY"] != float64(300) {
			t.Errorf("scroll down 300 = %v, want scrollY 300", d)
		}
		d = h.mustCall(t, "scroll", `{"selector":"#far"}`)
		if d["fullyInViewport"] != true {
			t.Errorf("scroll to #far = %v, want it fully in the viewport", d)
		}
		if y := h.mustCall(t, "evaluate_script", `{"function":"() => scrollY > 4000"}`)["value"]; y != true {
			t.Errorf("after scrolling to #far the page is not near it")
		}
	})
}

// TestBackendsResizeAndEmulate: resize_page sets what the page measures;
// emulate sets the user agent the page sees.
func TestBackendsResizeAndEmulate(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/tall.html"}`)
		d := h.mustCall(t, "resize_page", `{"width":800,"height":600}`)
		if m, _ := d["measured"].(map[string]any); m["innerWidth"] != float64(800) || m["innerHeight"] != float64(600) {
			t.Errorf("resize_page 800x600 = %v, want the page to measure 800x600", d)
		}
		h.mustCall(t, "emulate", `{"userAgent":"cdpkit-test/1.0"}`)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/tall.html"}`)
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => navigator.userAgent"}`)["value"]; got != "cdpkit-test/1.0" {
			t.Errorf("the page sees the user agent %q, want the emulated one", got)
		}
		h.mustCall(t, "resize_page", `{"reset":true}`)
	})
}

// TestFirefoxEmulateRefusesWhatBiDiLacks: an emulate option Firefox's
// BiDi cannot carry is refused as Unsupported, naming it, and nothing of
// the call is applied.
func TestFirefoxEmulateRefusesWhatBiDiLacks(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	h := backendHarness(t, BackendFirefox)
	h.mustCall(t, "navigate_page", `{"url":"`+site+`/tall.html"}`)
	for _, tt := range []struct{ args, option string }{
		{`{"colorScheme":"dark","userAgent":"half"}`, "colorScheme"},
		{`{"network":"Slow 3G","userAgent":"half"}`, "network Slow 3G"},
		{`{"cpuThrottlingRate":4,"userAgent":"half"}`, "cpuThrottling"},
	} {
		_, err := h.call(t, "emulate", tt.args)
		wantCode(t, err, Unsupported, "firefox cannot do "+tt.option)
	}
	if ua := h.mustCall(t, "evaluate_script", `{"function":"() => navigator.userAgent"}`)["value"]; ua == "half" {
		t.Error("a refused emulate call changed the user agent")
	}
}

// TestBackendsPointAt: the coordinate tools at points of the viewport,
// after a viewport screenshot: click_at (with Shift held) clicks what is
// there and names it, move_mouse hovers, drag_at drags on mouse events,
// scroll_at turns the wheel.
func TestBackendsPointAt(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/drag.html"}`)
		h.mustCall(t, "evaluate_script", `{"function":"() => { window.seen = []; src.addEventListener('click', e => seen.push('click' + (e.shiftKey ? '+shift' : ''))); dst.addEventListener('mouseover', () => seen.push('over')); addEventListener('wheel', e => { seen.push('wheel ' + e.deltaY); log.textContent = 'wheeled'; }); return true; }"}`)
		if _, err := h.result(t, "take_screenshot", `{}`); err != nil {
			t.Fatalf("take_screenshot: %v", err)
		}
		shot, _ := h.result(t, "evaluate_script", `{"function":"() => devicePixelRatio"}`)
		scale := 1.0
		if v, ok := shot.Data.(map[string]any); ok {
			if f, ok := v["value"].(float64); ok && f > 0 {
				scale = f
			}
		}
		at := func(x, y float64) string { return fmt.Sprintf(`"x":%g,"y":%g`, x*scale, y*scale) }
		d := h.mustCall(t, "click_at", `{`+at(50, 50)+`,"modifiers":["Shift"]}`)
		if hit := fmt.Sprint(d["hit"]); hit != `div#src "src"` {
			t.Errorf("click_at hit %q, want div#src", hit)
		}
		h.mustCall(t, "move_mouse", `{`+at(350, 250)+`}`)
		h.mustCall(t, "drag_at", fmt.Sprintf(`{"fromX":%g,"fromY":%g,"toX":%g,"toY":%g}`, 50*scale, 50*scale, 350*scale, 250*scale))
		h.mustCall(t, "scroll_at", `{`+at(200, 200)+`,"deltaX":10,"deltaY":100}`)
		h.mustCall(t, "wait_for", `{"text":["wheeled"]}`) // Chromium may deliver the wheel after the call
		got := h.mustCall(t, "evaluate_script", `{"function":"() => seen.join() + ' ' + (log.dataset.mouse || '-')"}`)["value"]
		// The drag leaves #dst for #src and enters it again: a second over.
		if got != "click+shift,over,over,wheel 100 dropped" {
			t.Errorf("the page saw %q, want the shift-click, the hover, the drag's return, the wheel and the mouse drop", got)
		}
	})
}

// TestBackendsClickModifiers: click with modifiers holds them through the
// click, on every backend.
func TestBackendsClickModifiers(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/drag.html"}`)
		h.mustCall(t, "evaluate_script", `{"function":"() => { window.seen = []; src.addEventListener('click', e => seen.push((e.shiftKey ? 'shift' : '') + (e.altKey ? 'alt' : ''))); return true; }"}`)
		h.mustCall(t, "click", `{"selector":"#src","modifiers":["Shift"]}`)
		h.mustCall(t, "click", `{"selector":"#src","modifiers":["Shift","Alt"]}`)
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => seen.join()"}`)["value"]; got != "shift,shiftalt" {
			t.Errorf("the clicks carried the modifiers %q, want shift, then shift and alt", got)
		}
	})
}

// TestBackendsScrollAtOneAxis: scroll_at with a delta on one axis only
// (the other 0) turns the wheel, on every backend.
func TestBackendsScrollAtOneAxis(t *testing.T) {
	t.Parallel()
	site := pointerSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/tall.html"}`)
		h.mustCall(t, "scroll_at", `{"x":100,"y":100,"deltaY":200}`)
		if y := h.mustCall(t, "evaluate_script", `{"function":"() => new Promise(r => requestAnimationFrame(() => r(scrollY)))"}`)["value"]; y != float64(200) {
			t.Errorf("after scroll_at deltaY 200 the page is at scrollY %v, want 200", y)
		}
	})
}
