package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/poll"
)

// TestPageToolsRejectArgs checks the argument errors caught before any
// browser is needed (testEnv has none).
func TestPageToolsRejectArgs(t *testing.T) {
	tests := []struct {
		tool    string
		args    string
		mention string
	}{
		{"navigate_page", `{}`, "url"},
		{"navigate_page", `{"type":"url"}`, "url"},
		{"navigate_page", `{"type":"sideways"}`, "sideways"},
		{"navigate_page", `{"type":"back","url":"http://127.0.0.1/"}`, "url"},
		{"navigate_page", `{"url":"http://127.0.0.1/","ignoreCache":true}`, "ignoreCache"},
		{"navigate_page", `{"type":"reload","waitUntil":"idle"}`, "waitUntil"},
		{"navigate_page", `{"type":"reload","timeout":-5}`, "timeout"},
		{"select_page", `{}`, "target"},
		{"select_page", `{"target":""}`, "target"},
		{"close_page", `{}`, "target"},
		{"new_page", `{"background":"yes"}`, "background"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			_, err := runTool(t, testEnv(), tt.tool, tt.args)
			wantCode(t, err, InvalidArgs, tt.mention)
		})
	}
}

// TestNavigationTools runs the navigation, tab and emulation tools against
// one real browser on the shared fixture pages.
func TestNavigationTools(t *testing.T) {
	var (
		mu      sync.Mutex
		headers http.Header // of the last /echo request
	)
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(fixtures.Pages()))
	mux.HandleFunc("/nav-slow.png", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
		case <-done:
		}
		w.Header().Set("Cache-Control", "no-store")
		png.Encode(w, image.NewGray(image.Rect(0, 0, 1, 1)))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Echo</title><p>echo"))
	})
	srv := browsertest.ServerHandler(t, mux)
	t.Cleanup(func() { close(done) }) // before the server's Close waits for /nav-slow.png
	if _, err := fs.Stat(fixtures.Pages(), "nav-one.html"); err != nil {
		t.Fatal(err)
	}

	t.Parallel()
	h := newHarness(t, nil)

	activeID := func(t *testing.T) string {
		t.Helper()
		for _, p := range h.mustCall(t, "list_pages", `{}`)["pages"].([]any) {
			if p := p.(map[string]any); p["active"] == true {
				return p["id"].(string)
			}
		}
		return ""
	}
	eval := func(t *testing.T, expr string, v any) {
		t.Helper()
		s, err := rawcdp.Session(t.Context(), h.tab(t, ""))
		if err != nil {
			t.Fatal(err)
		}
		yes := true
		res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
		if err != nil || res.ExceptionDetails != nil {
			t.Fatalf("Evaluate(%s): %v %v", expr, err, res.ExceptionDetails)
		}
		if err := json.Unmarshal(res.Result.Value, v); err != nil {
			t.Fatal(err)
		}
	}
	u := func(path string) string { return srv.URL + "/" + path }

	t.Run("navigate, back, forward, reload", func(t *testing.T) {
		got := h.mustCall(t, "navigate_page", `{"url":"`+u("nav-one.html")+`"}`)
		c, _ := got["changes"].(map[string]any)
		if got["url"] != u("nav-one.html") || got["title"] != "One" || got["status"] != 200.0 || c == nil || !strings.Contains(fmt.Sprint(c["elements"]), `link "Two"`) {
			t.Errorf("navigate_page = %v, want url nav-one.html, title One, status 200, changes listing the page's link", got)
		}
		h.mustCall(t, "navigate_page", `{"url":"`+u("nav-two.html")+`"}`)
		steps := []struct{ args, wantTitle string }{
			{`{"type":"back"}`, "One"},
			{`{"type":"forward","waitUntil":"domcontentloaded"}`, "Two"},
			{`{"type":"reload","ignoreCache":true}`, "Two"},
		}
		for _, st := range steps {
			got := h.mustCall(t, "navigate_page", st.args)
			if got["title"] != st.wantTitle || got["changes"] == nil {
				t.Errorf("navigate_page %s = %v, want title %s and changes", st.args, got, st.wantTitle)
			}
		}
		_, err := h.call(t, "navigate_page", `{"type":"forward"}`)
		wantCode(t, err, NavigationFailed, "end of its history")
	})

	t.Run("hash route while the page loads", func(t *testing.T) {
		h.mustCall(t, "navigate_page", `{"url":"`+u("nav-router.html")+`","waitUntil":"domcontentloaded"}`)
		got := h.mustCall(t, "navigate_page", `{"url":"`+u("nav-router.html#/b")+`","timeout":2000}`)
		if got["url"] != u("nav-router.html#/b") {
			t.Errorf("navigate_page #/b = %v, want the url with #/b", got)
		}
		var view string
		if eval(t, "document.getElementById('view').textContent", &view); view != "View b" {
			t.Errorf("the router shows %q, want View b", view)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		// The navigation's own TIMEOUT ("did not reach load"), not the
		// call's deadline.
		_, err := h.call(t, "navigate_page", `{"url":"`+u("nav-slow.html")+`","timeout":300}`)
		wantCode(t, err, Timeout, "did not reach load")
		got := h.mustCall(t, "navigate_page", `{"url":"`+u("nav-one.html")+`"}`)
		if got["title"] != "One" {
			t.Errorf("navigate_page after the timeout = %v, want title One", got)
		}
	})

	t.Run("tabs", func(t *testing.T) {
		front := activeID(t)
		bg := h.mustCall(t, "new_page", `{"url":"`+u("nav-two.html")+`","background":true}`)
		if bg["title"] != "Two" || bg["active"] != false {
			t.Errorf("new_page background = %v, want title Two, not active", bg)
		}
		if got := activeID(t); got != front {
			t.Errorf("after new_page background the active tab is %s, want still %s", got, front)
		}
		sel := h.mustCall(t, "select_page", `{"target":"`+bg["id"].(string)+`","bringToFront":true}`)
		if sel["id"] != bg["id"] || sel["active"] != true {
			t.Errorf("select_page = %v, want tab %v active", sel, bg["id"])
		}
		if got := activeID(t); got != bg["id"] {
			t.Errorf("after select_page the active tab is %s, want %v", got, bg["id"])
		}
		closed := h.mustCall(t, "close_page", `{"target":"active"}`)
		if closed["closed"] != bg["id"] || closed["note"] != nil {
			t.Errorf("close_page = %v, want tab %v closed, no note", closed, bg["id"])
		}
		for _, p := range closed["pages"].([]any) {
			if p.(map[string]any)["id"] == bg["id"] {
				t.Errorf("close_page still lists the closed tab: %v", closed)
			}
		}
		if got := activeID(t); got != front {
			t.Errorf("after closing the active tab the active one is %s, want %s", got, front)
		}
		_, err := h.call(t, "select_page", `{"target":"index:99"}`)
		wantCode(t, err, TargetNotFound, "index:99")
	})

	t.Run("resize", func(t *testing.T) {
		h.mustCall(t, "navigate_page", `{"url":"`+u("emulate-viewport.html")+`"}`)
		h.mustCall(t, "take_snapshot", `{"interactive":true}`)
		got := h.mustCall(t, "resize_page", `{"preset":"mobile"}`)
		m, _ := got["measured"].(map[string]any)
		if m["innerWidth"] != 390.0 || m["devicePixelRatio"] != 3.0 || got["warning"] != nil {
			t.Errorf("resize_page mobile = %v, want innerWidth 390, devicePixelRatio 3, no warning", got)
		}
		// The page's narrow layout swaps a link for a Menu button.
		c, _ := got["changes"].(map[string]any)
		if els, _ := c["elements"].(string); !strings.Contains(els, `button "Menu"`) || !strings.Contains(els, "Documentation") {
			t.Errorf("resize_page mobile changes = %v, want the Menu button added and the Documentation link removed", c)
		}
		h.mustCall(t, "navigate_page", `{"url":"`+u("emulate-fixed.html")+`"}`)
		got = h.mustCall(t, "resize_page", `{"preset":"mobile"}`)
		if w, _ := got["warning"].(string); !strings.Contains(w, "meta name=viewport") {
			t.Errorf("resize_page mobile on a page without viewport meta = %v, want a warning naming it", got)
		}
		// deviceScaleFactor and mobile override a size or a preset.
		got = h.mustCall(t, "resize_page", `{"width":800,"height":600,"deviceScaleFactor":2,"mobile":true}`)
		if m, _ := got["measured"].(map[string]any); m["devicePixelRatio"] != 2.0 || got["asked"].(map[string]any)["mobile"] != true {
			t.Errorf("resize_page 800x600 at 2x, mobile = %v, want devicePixelRatio 2 and mobile asked", got)
		}
		if touch := h.mustCall(t, "evaluate_script", `{"function":"navigator.maxTouchPoints > 0"}`)["value"]; touch != true {
			t.Errorf("mobile:true gave no touch points")
		}
		got = h.mustCall(t, "resize_page", `{"preset":"mobile","deviceScaleFactor":1}`)
		if m, _ := got["measured"].(map[string]any); m["devicePixelRatio"] != 1.0 {
			t.Errorf("resize_page mobile at 1x = %v, want devicePixelRatio 1", got)
		}
		got = h.mustCall(t, "resize_page", `{"reset":true}`)
		if m, _ := got["measured"].(map[string]any); got["asked"] != nil || m["devicePixelRatio"] != 1.0 {
			t.Errorf("resize_page reset = %v, want nothing asked and devicePixelRatio 1", got)
		}
	})

	t.Run("emulate", func(t *testing.T) {
		const secret = "Bearer t0ps3cret"
		got := h.mustCall(t, "emulate", `{"colorScheme":"dark","userAgent":"cdpkit-agent/2","extraHeaders":{"Authorization":"`+secret+`","X-Trace":"on"},"geolocation":{"latitude":48.8584,"longitude":2.2945}}`)
		raw, _ := json.Marshal(got)
		if strings.Contains(string(raw), "t0ps3cret") {
			t.Errorf("emulate echoes the Authorization value: %s", raw)
		}
		hdrs, _ := got["extraHeaders"].(map[string]any)
		g, _ := got["geolocation"].(map[string]any)
		if got["colorScheme"] != "dark" || got["userAgent"] != "cdpkit-agent/2" || hdrs["Authorization"] != "<redacted>" || hdrs["X-Trace"] != "on" || g["accuracy"] != 10.0 {
			t.Errorf("emulate = %s, want dark, the user agent, redacted Authorization, X-Trace and the position with accuracy 10", raw)
		}
		h.mustCall(t, "navigate_page", `{"url":"`+u("echo")+`"}`)
		mu.Lock()
		seen := headers
		mu.Unlock()
		if seen.Get("Authorization") != secret || seen.Get("X-Trace") != "on" || seen.Get("User-Agent") != "cdpkit-agent/2" {
			t.Errorf("the server got %v, want the emulated user agent and extra headers", seen)
		}
		var dark bool
		if eval(t, "matchMedia('(prefers-color-scheme: dark)').matches", &dark); !dark {
			t.Errorf("the page does not prefer dark")
		}

		got = h.mustCall(t, "emulate", `{"geolocation":null,"extraHeaders":{},"colorScheme":"auto","userAgent":""}`)
		// Only the launched browser's default viewport stays in effect.
		if raw, _ := json.Marshal(got); string(raw) != `{"viewport":{"deviceScaleFactor":1,"height":720,"width":1280}}` {
			t.Errorf("emulate clearing all = %s, want nothing in effect but the default viewport", raw)
		}
		if strings.Contains(h.allLogs(), "t0ps3cret") {
			t.Errorf("the logs hold the Authorization value")
		}
	})

	t.Run("offline", func(t *testing.T) {
		h.mustCall(t, "emulate", `{"network":"offline"}`)
		_, err := h.call(t, "navigate_page", `{"url":"`+u("nav-two.html")+`"}`)
		h.mustCall(t, "emulate", `{"network":"none"}`)
		wantCode(t, err, NavigationFailed, "ERR_INTERNET_DISCONNECTED")
		if got := h.mustCall(t, "navigate_page", `{"url":"`+u("nav-two.html")+`"}`); got["title"] != "Two" {
			t.Errorf("navigate_page back online = %v, want title Two", got)
		}
	})
}

// TestClosingTheLastTab closes every tab: in the unscoped view (stdio, the
// CLI) the next page call then finds no tab, and new_page opens one. It
// needs a browser of its own, since the unscoped view is every tab.
func TestClosingTheLastTab(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	u := func(path string) string { return base + "/" + path }
	h := newHarness(t, &harnessOptions{Browser: &browser.Options{}})
	h.mustCall(t, "navigate_page", `{"url":"`+u("nav-one.html")+`"}`)
	for range 10 {
		got := h.mustCall(t, "close_page", `{"target":"active"}`)
		if len(got["pages"].([]any)) == 0 {
			if note, _ := got["note"].(string); !strings.Contains(note, "last tab") {
				t.Errorf("close_page of the last tab = %v, want a note saying so", got)
			}
			break
		}
	}
	_, err := h.call(t, "navigate_page", `{"type":"reload"}`)
	wantCode(t, err, TargetNotFound, "0 open")
	if got := h.mustCall(t, "new_page", `{"url":"`+u("nav-one.html")+`"}`); got["title"] != "One" || got["active"] != true {
		t.Errorf("new_page after closing every tab = %v, want title One, active", got)
	}
}

// TestSchemelessURL checks that a URL typed without a scheme loads as an
// address bar would load it (issue #24 item 7), and that the result says
// which URL was loaded; a bare word stays INVALID_URL.
func TestSchemelessURL(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	hostport := strings.TrimPrefix(base, "http://127.0.0.1")
	for _, typed := range []string{"localhost" + hostport + "/nav-one.html", "127.0.0.1" + hostport + "/nav-one.html"} {
		nav := h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, typed))
		if got := nav["url"]; got != "http://"+typed {
			t.Errorf("navigate_page %s loaded %v, want http://%s", typed, got, typed)
		}
		page := h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q,"background":true}`, typed))
		if got := page["url"]; got != "http://"+typed {
			t.Errorf("new_page %s loaded %v, want http://%s", typed, got, typed)
		}
	}
	_, err := h.call(t, "navigate_page", `{"url":"intranet"}`)
	wantCode(t, err, InvalidURL, "intranet")
}

// TestDefaultViewport: a launched browser's pages are 1280×720, as both
// peers' are (the window alone gave 1280×633: headless Chromium's window
// counts its toolbar), in a new tab, in a screenshot and after
// resize_page's reset (issue #39).
func TestDefaultViewport(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, base+"/form.html"))
	size := func() string {
		t.Helper()
		return fmt.Sprint(h.mustCall(t, "evaluate_script", `{"function":"() => innerWidth + 'x' + innerHeight"}`)["value"])
	}
	if got := size(); got != "1280x720" {
		t.Errorf("a new tab's viewport is %s, want 1280x720", got)
	}
	shot, err := h.result(t, "take_screenshot", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.DecodeConfig(bytes.NewReader(shot.Image.Data))
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != 1280 || img.Height != 720 {
		t.Errorf("screenshot is %dx%d, want 1280x720", img.Width, img.Height)
	}
	h.mustCall(t, "resize_page", `{"width":500,"height":400}`)
	h.mustCall(t, "resize_page", `{"reset":true}`)
	if got := size(); got != "1280x720" {
		t.Errorf("after resize_page reset the viewport is %s, want 1280x720", got)
	}
}

// TestListPagesAll: list_pages with all:true lists the page's workers and
// service workers too, with their type and URL (issue #39); without it,
// tabs only.
func TestListPagesAll(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sw.js", "/worker.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `setInterval(() => {}, 1000);`)
		default:
			fmt.Fprint(w, `<!doctype html><title>Workers</title><script>
window.w = new Worker('/worker.js');
navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => document.body.append('Ready'));
</script>`)
		}
	}))
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+"/"))
	h.mustCall(t, "wait_for", `{"text":"Ready"}`)
	if data := h.mustCall(t, "list_pages", `{}`); data["workers"] != nil {
		t.Errorf("list_pages without all lists workers: %v", data["workers"])
	}
	found := map[string]bool{}
	both := func(context.Context) bool {
		data := h.mustCall(t, "list_pages", `{"all":true}`)
		rows, _ := data["workers"].([]any)
		for _, r := range rows {
			row := r.(map[string]any)
			u, _ := row["url"].(string)
			found[fmt.Sprint(row["type"], " ", u[strings.LastIndex(u, "/"):])] = true
		}
		return found["service_worker /sw.js"] && found["worker /worker.js"]
	}
	// A worker's target may be announced a moment after the page says so.
	if err := poll.Until(t.Context(), poll.Options{Interval: 50 * time.Millisecond}, both); err != nil {
		t.Errorf("list_pages all:true found %v, want service_worker /sw.js and worker /worker.js", found)
	}
}
