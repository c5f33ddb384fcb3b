package browser

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/input"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// pointerTab opens a fixture page in a new tab of the shared browser.
func pointerTab(t *testing.T, page string) *Tab {
	t.Helper()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/"+page); err != nil {
		t.Fatal(err)
	}
	return tab
}

// pointerValue evaluates expr in the tab's main document and decodes it.
func pointerValue[T any](t *testing.T, tab *Tab, expr string) T {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var v T
	yes := true
	res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluating %s: %s", expr, exceptionText(res.ExceptionDetails))
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return v // undefined
	}
	raw := res.Result.Value
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s = %s: %v", expr, raw, err)
	}
	return v
}

func TestClick(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-click.html")
	tests := []struct {
		name  string
		setup string // script run first
		o     driver.ClickOptions
		want  string // the event the page logs
	}{
		{"plain", "", driver.ClickOptions{Selector: "#plain"}, "click:plain:0:1::true"},
		{"half under a fixed header", "", driver.ClickOptions{Selector: "#under-header"}, "click:under-header:0:1::true"},
		{"wholly under a fixed header", "scrollTo(0, document.getElementById('plain').getBoundingClientRect().top + scrollY - 20)",
			driver.ClickOptions{Selector: "#plain"}, "click:plain:0:1::true"},
		{"double", "", driver.ClickOptions{Selector: "#double", Double: true}, "dblclick:double:0:2::true"},
		{"right", "", driver.ClickOptions{Selector: "#menu", Button: "right"}, "contextmenu:menu:2:0::true"},
		{"middle", "", driver.ClickOptions{Selector: "#plain", Button: "middle"}, "auxclick:plain:1:1::true"},
		{"shift", "", driver.ClickOptions{Selector: "#mods", Modifiers: input.ModShift}, "click:mods:0:1:shift:true"},
		{"control and alt", "", driver.ClickOptions{Selector: "#mods", Modifiers: input.ModCtrl | input.ModAlt}, "click:mods:0:1:ctrlalt:true"},
		{"scrolled to", "", driver.ClickOptions{Selector: "#far"}, "click:far:0:1::true"},
		{"forced though fine", "", driver.ClickOptions{Selector: "#plain", Force: true}, "click:plain:0:1::true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pointerValue[any](t, tab, "events.length = 0")
			if tt.setup != "" {
				pointerValue[any](t, tab, tt.setup)
			}
			res, err := tab.Click(t.Context(), tt.o)
			if err != nil {
				t.Fatalf("Click: %v", err)
			}
			if res.Forced {
				t.Errorf("Forced = true, want a real click")
			}
			if strings.Contains(tt.name, "header") && res.Y < 70 {
				t.Errorf("clicked at y=%v, under the 70 px header", res.Y)
			}
			events := pointerValue[[]string](t, tab, "events")
			if !slices.Contains(events, tt.want) {
				t.Errorf("page saw %q, want %q among them", events, tt.want)
			}
		})
	}
}

func TestClickRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		selector string
		want     error
	}{
		{"#none", driver.ErrElementNotVisible},
		{"#invisible", driver.ErrElementNotVisible},
		{"#zero", driver.ErrElementNotVisible},
		{"#offscreen", driver.ErrElementOffscreen},
		{"#disabled", driver.ErrElementDisabled},
		{"#nopointer", driver.ErrElementCovered},
		{"#missing", driver.ErrElementNotFound},
	}
	// One look each (WithActionWait 0): these elements stay refused, so a
	// wait would only run out; TestAgentActionabilityWaits covers waiting.
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			t.Parallel()
			tab := pointerTab(t, "pointer-click.html")
			_, err := tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Selector: tt.selector})
			var ee *driver.ElementError
			if !errors.Is(err, tt.want) || !errors.As(err, &ee) || ee.Selector != tt.selector {
				t.Fatalf("Click(%s) = %v, want an *ElementError naming it wrapping %v", tt.selector, err, tt.want)
			}
			if got := pointerValue[[]string](t, tab, "events"); len(got) != 0 {
				t.Errorf("refused click reached the page: %q", got)
			}
		})
	}
	t.Run("forced", func(t *testing.T) {
		t.Parallel()
		tab := pointerTab(t, "pointer-click.html")
		var ce *driver.CoveredError
		_, err := tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Selector: "#nopointer"})
		if !errors.As(err, &ce) || !ce.Ancestor || !strings.HasPrefix(ce.By, "div.row") {
			t.Errorf("Click(#nopointer) = %v, want its ancestor div.row named", err)
		}
		if got := pointerValue[[]string](t, tab, "events"); len(got) != 0 {
			t.Errorf("refused clicks reached the page: %q", got)
		}
		for _, sel := range []string{"#none", "#offscreen", "#nopointer"} {
			if res, err := tab.Click(t.Context(), driver.ClickOptions{Selector: sel, Force: true}); err != nil || !res.Forced {
				t.Errorf("forced Click(%s) = %+v, %v; want forced", sel, res, err)
			}
		}
		want := []string{"click:none:0:0::false", "click:offscreen:0:0::false", "click:nopointer:0:0::false"} // click() has detail 0
		if got := pointerValue[[]string](t, tab, "events"); !slices.Equal(got, want) {
			t.Errorf("forced clicks: page saw %q, want %q", got, want)
		}
		if _, err := tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Selector: "#disabled", Force: true}); !errors.Is(err, driver.ErrElementDisabled) {
			t.Errorf("forced Click(#disabled) = %v, want ErrElementDisabled still", err)
		}
	})
}

func TestClickOverlay(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-overlay.html")
	_, err := tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Selector: "#behind"})
	var ce *driver.CoveredError
	if !errors.As(err, &ce) || ce.By != `div#overlay.modal "Accept cookies OK"` {
		t.Fatalf("Click = %v, want covered by the overlay", err)
	}
	res, err := tab.Click(t.Context(), driver.ClickOptions{Selector: "#behind", Force: true})
	if err != nil || !res.Forced {
		t.Fatalf("forced Click = %+v, %v; want forced", res, err)
	}
	if got := pointerValue[[]string](t, tab, "events"); !slices.Equal(got, []string{"click:false"}) {
		t.Errorf("page saw %q, want one DOM click", got)
	}
	// Dismissing the overlay frees the button for a real click.
	if _, err := tab.Click(t.Context(), driver.ClickOptions{Selector: "#accept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(t.Context(), driver.ClickOptions{Selector: "#behind"}); err != nil {
		t.Fatal(err)
	}
	if got := pointerValue[[]string](t, tab, "events"); !slices.Equal(got, []string{"click:false", "click:true"}) {
		t.Errorf("page saw %q, want a DOM click then a real one", got)
	}
}

func TestClickNavigates(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-click.html")
	start := time.Now()
	if _, err := tab.Click(t.Context(), driver.ClickOptions{Selector: "#submit"}); err != nil {
		t.Fatalf("Click: %v", err)
	}
	loc, err := tab.Location(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(loc.URL, "/pointer-done.html?q=hello") || loc.Title != "Pointer done" {
		t.Errorf("after submitting: %+v, want the result page loaded", loc)
	}
	if state := pointerValue[string](t, tab, "document.readyState"); state != "complete" {
		t.Errorf("readyState = %s, want complete", state)
	}
	t.Logf("submit click took %v", time.Since(start))
}

func TestClickInFrame(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-frame.html")
	// Another tab opened after this one, as an agent's second tab or a
	// parallel test's, takes the front: clicks in this one's frames must
	// still land.
	b := sharedBrowser(t)
	other, err := b.NewTab(t.Context())
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	t.Cleanup(func() { closeTab(t, b, other) })
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string // the same-origin frame's button, then the cross-origin one's
	for _, l := range res.Lines {
		if strings.Contains(l, `button "Frame button"`) {
			refs = append(refs, strings.Fields(l)[0])
		}
	}
	if len(refs) != 2 {
		t.Fatalf("want two frame buttons in the snapshot:\n%s", res.Text)
	}
	for i, ref := range refs {
		if _, err := tab.Click(t.Context(), driver.ClickOptions{Ref: ref}); err != nil {
			t.Fatalf("Click(%s): %v", ref, err)
		}
		el, err := tab.element(t.Context(), ref, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := evalOn(t, el, `function() { return this.textContent }`); got != "Clicked for real" {
			t.Errorf("frame button %s says %q, want a real click", ref, got)
		}
		if oop := el.Session != tab.sess; oop != (i == 1) {
			t.Errorf("frame button %s out of process: %v", ref, oop)
		}
		el.Release(t.Context())
	}

	// An iframe itself can be clicked: on its content.
	if _, err := tab.Click(t.Context(), driver.ClickOptions{Selector: "iframe"}); err != nil {
		t.Errorf("Click(iframe): %v", err)
	}

	// A veil over the page covers the frames, and is named.
	pointerValue[any](t, tab, `document.body.insertAdjacentHTML('beforeend', '<div id="veil" style="position:fixed;inset:0"></div>')`)
	for _, ref := range refs {
		// One look: a veil that stays would only make the click wait out
		// its action wait.
		_, err = tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Ref: ref})
		var ce *driver.CoveredError
		if !errors.As(err, &ce) || ce.By != "div#veil" {
			t.Errorf("Click(%s) under a veil = %v, want covered by div#veil", ref, err)
		}
	}
}

func TestClickOpensDialog(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-click.html")
	pointerValue[any](t, tab, `document.getElementById('plain').onclick = () => confirm('Sure?')`)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	res, err := tab.Click(ctx, driver.ClickOptions{Selector: "#plain"})
	if err != nil || !res.Dialog {
		t.Fatalf("Click = %+v, %v; want Dialog set", res, err)
	}
	if err := tab.CheckDialog(); err == nil {
		t.Errorf("CheckDialog = nil, want the confirm dialog")
	}
	if _, err := tab.HandleDialog(t.Context(), true, ""); err != nil {
		t.Errorf("HandleDialog: %v", err)
	}
	// An alert the tab's policy answers does not stop the click.
	pointerValue[any](t, tab, `document.getElementById('plain').onclick = () => alert('hi')`)
	if res, err := tab.Click(ctx, driver.ClickOptions{Selector: "#plain"}); err != nil || res.Dialog {
		t.Errorf("Click with an alert = %+v, %v; want no dialog waiting", res, err)
	}
}

func TestHover(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-hover.html")
	res, err := tab.Hover(t.Context(), "", "#products")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Hovered {
		t.Errorf("Hovered = false, want true")
	}
	if shown := pointerValue[bool](t, tab, "getComputedStyle(document.querySelector('.items')).display === 'block'"); !shown {
		t.Errorf("the hover menu did not open")
	}
	res, err = tab.Hover(t.Context(), "", "#away")
	if err != nil || !res.Hovered {
		t.Fatalf("Hover(#away) = %+v, %v", res, err)
	}
	if shown := pointerValue[bool](t, tab, "getComputedStyle(document.querySelector('.items')).display === 'block'"); shown {
		t.Errorf("the hover menu stayed open after the mouse left")
	}
}

func TestDrag(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-dnd.html")
	res, err := tab.Drag(t.Context(), driver.DragOptions{FromSelector: "#d", ToSelector: "#b"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.HTML5 {
		t.Errorf("HTML5 = false, want an HTML5 drag")
	}
	if got := pointerValue[string](t, tab, "[...document.querySelectorAll('#list li')].map(l => l.id).join('')"); got != "adbc" {
		t.Errorf("list order = %s, want adbc", got)
	}
	res, err = tab.Drag(t.Context(), driver.DragOptions{FromSelector: "#box", ToSelector: "#bin"})
	if err != nil {
		t.Fatal(err)
	}
	if res.HTML5 {
		t.Errorf("HTML5 = true for a mouse-event drag")
	}
	if got := pointerValue[string](t, tab, "document.getElementById('box').textContent"); got != "Binned" {
		t.Errorf("box says %q, want it dropped in the bin", got)
	}
}

func TestScroll(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-scroll.html")
	f := func(v float64) *float64 { return &v }
	vh := pointerValue[float64](t, tab, "innerHeight")
	tests := []struct {
		name         string
		o            driver.ScrollOptions
		wantX, wantY float64
	}{
		{"down", driver.ScrollOptions{Direction: "down"}, 0, 0.8 * vh},
		{"down by pixels", driver.ScrollOptions{Direction: "down", Pixels: 100}, 0, 0.8*vh + 100},
		{"up", driver.ScrollOptions{Direction: "up", Pixels: 50}, 0, 0.8*vh + 50},
		{"right", driver.ScrollOptions{Direction: "right", Pixels: 300}, 300, 0.8*vh + 50},
		{"to x only", driver.ScrollOptions{X: f(10)}, 10, 0.8*vh + 50},
		{"to y only", driver.ScrollOptions{Y: f(0)}, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tab.Scroll(t.Context(), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if res.ScrollX != tt.wantX || res.ScrollY != float64(int(tt.wantY)) && res.ScrollY != tt.wantY {
				t.Errorf("scrolled to %v,%v, want %v,%v", res.ScrollX, res.ScrollY, tt.wantX, tt.wantY)
			}
			if res.PageWidth != 3000 || res.PageHeight != 5000 || res.ViewportHeight != vh || res.InViewport != nil {
				t.Errorf("result = %+v, want the page's size and viewport, no element fields", res)
			}
		})
	}
	t.Run("to element", func(t *testing.T) {
		res, err := tab.Scroll(t.Context(), driver.ScrollOptions{Selector: "#target"})
		if err != nil {
			t.Fatal(err)
		}
		if res.InViewport == nil || !*res.InViewport || !*res.FullyInViewport || res.ScrollY < 4050-vh || res.ScrollY > 4000 {
			t.Errorf("result = %+v, want the target fully in view", res)
		}
	})
	t.Run("bad", func(t *testing.T) {
		for _, o := range []driver.ScrollOptions{{}, {Direction: "sideways"}, {Direction: "down", Y: f(3)}, {Direction: "down", Pixels: -1}} {
			if _, err := tab.Scroll(t.Context(), o); !errors.Is(err, driver.ErrInvalidArgument) {
				t.Errorf("Scroll(%+v) = %v, want ErrInvalidArgument", o, err)
			}
		}
	})
}

func TestScrollContainer(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-pane.html")
	res, err := tab.Scroll(t.Context(), driver.ScrollOptions{Direction: "down", Pixels: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Container != "main#pane.scroller" || res.ScrollY != 500 || res.PageHeight != 4000 {
		t.Errorf("result = %+v, want main#pane.scroller scrolled to 500 of 4000", res)
	}
}

// TestClickComposedWidgets clicks controls drawn by other elements of the
// same widget, as a person would: a switch whose styled track covers its
// input in a web component's shadow root, a toggle whose component
// listens on the track, and a zero-size checkbox drawn by its label. A
// foreign element (a banner) over a checkbox still covers it.
func TestClickComposedWidgets(t *testing.T) {
	t.Parallel()
	tab := pointerTab(t, "pointer-composed.html")
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{Options: snapshot.Options{Interactive: true}})
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]string{
		`switch "Wi-Fi"`:     `document.getElementById('wifi').shadowRoot.querySelector('input').checked`,
		`switch "Bluetooth"`: `document.getElementById('bt').shadowRoot.querySelector('input').checked`,
		`checkbox "I agree"`: `document.getElementById('terms').checked`,
	}
	for line, expr := range checked {
		ref := refOfLine(res.Text, line)
		if ref == "" {
			t.Errorf("no %s in the snapshot:\n%s", line, res.Text)
			continue
		}
		if _, err := tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Ref: ref}); err != nil {
			t.Errorf("Click(%s) = %v, want it toggled", line, err)
			continue
		}
		if !pointerValue[bool](t, tab, expr) {
			t.Errorf("after Click(%s): not checked", line)
		}
	}
	_, err = tab.Click(driver.WithActionWait(t.Context(), 0), driver.ClickOptions{Selector: "#covered"})
	var ce *driver.CoveredError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.By, "span#cookie") {
		t.Errorf("Click(#covered) = %v, want covered by span#cookie", err)
	}
}
