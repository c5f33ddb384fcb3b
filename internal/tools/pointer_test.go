package tools

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/input"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// TestPointerToolsRejectArgs checks the argument errors caught before any
// browser is needed.
func TestPointerToolsRejectArgs(t *testing.T) {
	tests := []struct {
		tool    string
		args    string
		mention string
	}{
		{"click", `{}`, "uid or selector"},
		{"click", `{"uid":"e1","selector":"b"}`, "uid and selector"},
		{"click", `{"uid":"e1","button":"back"}`, "back"},
		{"click", `{"uid":"e1","modifiers":["Hyper"]}`, "Hyper"},
		{"hover", `{}`, "uid or selector"},
		{"drag", `{"to_uid":"e2"}`, "from_uid"},
		{"drag", `{"from_uid":"e1"}`, "to_uid"},
		{"drag", `{"from_uid":"e1","from_selector":"a","to_uid":"e2"}`, "from_uid and from_selector"},
		{"scroll", `{}`, "exactly one"},
		{"scroll", `{"direction":"down","uid":"e1"}`, "exactly one"},
		{"scroll", `{"direction":"sideways"}`, "sideways"},
		{"scroll", `{"uid":"e1","pixels":10}`, "pixels"},
		{"scroll", `{"direction":"down","pixels":-10}`, "pixels"},
		{"scroll", `{"x":-1}`, "position"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			_, err := runTool(t, testEnv(), tt.tool, tt.args)
			wantCode(t, err, InvalidArgs, tt.mention)
		})
	}
}

func TestParseModifiers(t *testing.T) {
	got, err := parseModifiers([]string{"Shift", "control", "Meta", "Alt"})
	if want := input.ModShift | input.ModCtrl | input.ModMeta | input.ModAlt; err != nil || got != want {
		t.Errorf("parseModifiers = %d, %v; want %d", got, err, want)
	}
}

func TestPointerErrors(t *testing.T) {
	tests := []struct {
		err     error
		code    Code
		message string
	}{
		{&driver.ElementError{Ref: "e3", Err: &driver.CoveredError{By: `div#overlay.modal "Accept cookies"`}},
			ElementNotClickable, `e3 is covered by div#overlay.modal "Accept cookies"`},
		{&driver.ElementError{Selector: "#go", Err: &driver.CoveredError{By: "div.card", Ancestor: true}},
			ElementNotClickable, `"#go" takes no pointer events: they land on its ancestor div.card`},
		{&driver.ElementError{Ref: "e4", Err: driver.ErrElementDisabled}, ElementNotClickable, "e4 is disabled"},
		{&driver.ElementError{Ref: "e5", Err: driver.ErrElementNotVisible}, ElementHidden, "e5 is not rendered"},
		{&driver.ElementError{Ref: "e6", Err: driver.ErrElementOffscreen}, ElementHidden, "e6 is outside the viewport"},
	}
	for _, tt := range tests {
		got := AsError(tt.err)
		if got.Code != tt.code || got.Message != tt.message && !strings.HasPrefix(got.Message, tt.message) || got.Hint == "" || !got.Recoverable {
			t.Errorf("AsError(%v) = %+v, want %s %q, recoverable, with a hint", tt.err, got, tt.code, tt.message)
		}
	}
}

// pointerServer serves the fixture pages on 127.0.0.1, with CROSS_ORIGIN
// replaced by the same server reached as localhost: another site.
func pointerServer(t *testing.T) string {
	t.Helper()
	var cross string
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(fixtures.Pages(), strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.ReplaceAll(string(b), "CROSS_ORIGIN", cross)))
	}))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cross = "http://localhost:" + port
	return srv.URL
}

// TestPointerTools runs click, hover, drag and scroll on one real browser.
func TestPointerTools(t *testing.T) {
	base := pointerServer(t)
	t.Parallel()
	h := newHarness(t, nil)
	h.checkChanges = true
	tab := func(t *testing.T) *browser.Tab {
		t.Helper()
		return h.tab(t, "")
	}
	// open loads a page in the active tab and takes the interactive
	// snapshot that changes are reported against; it returns its text.
	open := func(t *testing.T, page string) string {
		t.Helper()
		tb := tab(t)
		if _, err := tb.Navigate(t.Context(), base+"/"+page); err != nil {
			t.Fatalf("Navigate: %v", err)
		}
		res, _, err := tb.SnapshotDiff(t.Context(), driver.SnapshotOptions{Options: snapshot.Options{Interactive: true}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	// refOf returns the ref on the last snapshot line containing line.
	refOf := func(t *testing.T, snapshot, line string) string {
		t.Helper()
		ref := ""
		for l := range strings.Lines(snapshot) {
			if strings.Contains(l, line) {
				ref = strings.Fields(l)[0]
			}
		}
		if ref == "" {
			t.Fatalf("no %q in the snapshot:\n%s", line, snapshot)
		}
		return ref
	}
	changes := func(data map[string]any) map[string]any { return data["changes"].(map[string]any) }

	t.Run("click submits and navigates", func(t *testing.T) {
		open(t, "pointer-click.html")
		c := changes(h.mustCall(t, "click", `{"selector":"#submit"}`))
		if c["navigated"] != true || !strings.Contains(fmt.Sprint(c["url"]), "/pointer-done.html?q=hello") || c["title"] != "Pointer done" {
			t.Errorf("changes = %v, want navigated to the result page", c)
		}
	})
	t.Run("click opens a tab", func(t *testing.T) {
		open(t, "pointer-click.html")
		c := changes(h.mustCall(t, "click", `{"selector":"#newtab"}`))
		opened, _ := c["tabsOpened"].([]any)
		if len(opened) != 1 || c["navigated"] == true {
			t.Fatalf("changes = %v, want one tab opened and no navigation", c)
		}
		newTab := h.tab(t, opened[0].(map[string]any)["id"].(string))
		if err := h.browser(t).CloseTab(t.Context(), newTab); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("click opens a dialog", func(t *testing.T) {
		open(t, "pointer-click.html")
		// A click the dialog blocked would end with TIMEOUT.
		c := changes(h.mustCall(t, "click", `{"selector":"#confirm"}`))
		if d, _ := c["dialog"].(map[string]any); d["type"] != "confirm" || d["message"] != "Sure?" || d["handled"] != "open" {
			t.Errorf("changes = %v, want the open confirm dialog", c)
		}
		_, err := h.call(t, "click", `{"selector":"#plain"}`)
		wantCode(t, err, DialogOpen, "Sure?")
		if _, err := tab(t).HandleDialog(t.Context(), true, ""); err != nil {
			t.Fatal(err)
		}
		if c := changes(h.mustCall(t, "click", `{"selector":"#plain"}`)); c["dialog"] != nil {
			t.Errorf("changes = %v, want no dialog", c)
		}
	})
	t.Run("click covered, then forced", func(t *testing.T) {
		snap := open(t, "pointer-overlay.html")
		ref := refOf(t, snap, `button "Behind the overlay"`)
		_, err := h.call(t, "click", fmt.Sprintf(`{"uid":%q,"waitMs":200}`, ref))
		wantCode(t, err, ElementNotClickable, ref+` is covered by div#overlay.modal "Accept cookies OK"`)
		data := h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q,"force":true}`, ref))
		if data["forced"] != true {
			t.Errorf("result = %v, want forced", data)
		}
	})
	t.Run("click refused", func(t *testing.T) {
		open(t, "pointer-click.html")
		_, err := h.call(t, "click", `{"selector":"#none","waitMs":200}`)
		wantCode(t, err, ElementNotVisible, `"#none"`)
		_, err = h.call(t, "click", `{"selector":"#disabled","waitMs":200}`)
		wantCode(t, err, ElementDisabled, `"#disabled" is disabled`)
	})
	t.Run("click in a cross-origin frame", func(t *testing.T) {
		ref := refOf(t, open(t, "pointer-frame.html"), `button "Frame button"`)
		c := changes(h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, ref)))
		if !strings.Contains(fmt.Sprint(c["elements"]), `"Clicked for real"`) {
			t.Errorf("changes = %v, want the frame button renamed by a real click", c)
		}
	})
	t.Run("hover opens a menu", func(t *testing.T) {
		open(t, "pointer-hover.html")
		data := h.mustCall(t, "hover", `{"selector":"#products"}`)
		if data["hovered"] != true || !strings.Contains(fmt.Sprint(changes(data)["elements"]), `link "Phones"`) {
			t.Errorf("result = %v, want hovered and the menu's links added", data)
		}
	})
	t.Run("drag reorders a list", func(t *testing.T) {
		open(t, "pointer-dnd.html")
		data := h.mustCall(t, "drag", `{"from_selector":"#d","to_selector":"#b"}`)
		if data["html5Drag"] != true {
			t.Errorf("result = %v, want an HTML5 drag", data)
		}
		res, err := tab(t).Snapshot(t.Context(), driver.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i, j := strings.Index(res.Text, "Date"), strings.Index(res.Text, "Banana"); i < 0 || j < 0 || i > j {
			t.Errorf("Date is not before Banana after the drop:\n%s", res.Text)
		}
	})
	t.Run("scroll", func(t *testing.T) {
		open(t, "pointer-scroll.html")
		data := h.mustCall(t, "scroll", `{"direction":"down","pixels":700}`)
		if data["scrollY"] != 700.0 || data["pageHeight"] != 5000.0 {
			t.Errorf("result = %v, want scrollY 700 of 5000", data)
		}
		data = h.mustCall(t, "scroll", `{"x":40}`)
		if data["scrollX"] != 40.0 || data["scrollY"] != 700.0 {
			t.Errorf("result = %v, want x 40 and y kept at 700", data)
		}
		data = h.mustCall(t, "scroll", `{"selector":"#target"}`)
		if data["inViewport"] != true || data["fullyInViewport"] != true {
			t.Errorf("result = %v, want the target fully in view", data)
		}
	})
}

// TestScrollSeesObservers scrolls to the bottom of an infinite feed ten
// times: the IntersectionObserver on its "Loading more…" line appends a
// story each time it comes into view, and each scroll's result must list
// the story its scroll loaded, as a person sees it appear. Before, the
// scroll answered before the page's next rendering update, which is when
// observers learn of a scroll: the story showed only in the next call's
// result, and two scrolls with no update between them could skip the
// observer's change of state, so the feed never loaded again. On 2 cores
// with 16 busy loops it failed in 15 of 30 runs before; 0 of 30 after.
func TestScrollSeesObservers(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Feed</title><style>article { height: 150vh }</style>
<div id=feed></div><p id=sentinel>Loading more…</p>
<script>
let n = 0;
new IntersectionObserver(es => {
  if (!es.some(e => e.isIntersecting)) return;
  const a = document.createElement('article');
  a.innerHTML = '<button>Save story ' + (++n) + '</button>';
  document.getElementById('feed').append(a);
}).observe(document.getElementById('sentinel'));
</script>`)
	})
	site := browsertest.ServerHandler(t, mux).URL
	t.Parallel()
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":"%s/"}`, site))
		// The first story loads with the page, whose sentinel is in view.
		h.mustCall(t, "wait_for", `{"text":["Save story 1"]}`)
		h.mustCall(t, "take_snapshot", `{}`)
		for i := 2; i <= 11; i++ {
			data := h.mustCall(t, "scroll", `{"direction":"bottom"}`)
			c, _ := data["changes"].(map[string]any)
			want := fmt.Sprintf(`button "Save story %d"`, i)
			if got := fmt.Sprint(c["elements"]); !strings.Contains(got, want) {
				t.Fatalf("scroll %d: changes.elements = %q, want %s", i-1, got, want)
			}
		}
	})
}
