package browser

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// inPageClickableJS is the alternative measured against DOMSnapshot: an
// isolated-world walk over computed style and attributes. It cannot see
// listeners added with addEventListener.
const inPageClickableJS = `(() => {
	const out = [];
	for (const el of document.body.querySelectorAll("*")) {
		const cs = getComputedStyle(el), p = el.parentElement;
		const own = cs.cursor === "pointer" && !(p && getComputedStyle(p).cursor === "pointer");
		const ti = el.getAttribute("tabindex");
		if (el.hasAttribute("onclick") || own || (ti !== null && +ti >= 0) || el.isContentEditable && !(p && p.isContentEditable)) out.push(el);
	}
	return out;
})()`

// TestMeasureClickableDetection times the detection methods on a page of
// n elements, 5% of them clickable. It measures, asserts nothing, and runs
// only with CDPKIT_MEASURE=1:
//
//	CDPKIT_MEASURE=1 go test -count=1 -run TestMeasureClickableDetection -v ./internal/browser
func TestMeasureClickableDetection(t *testing.T) {
	if os.Getenv("CDPKIT_MEASURE") == "" {
		t.Skip("a measurement: set CDPKIT_MEASURE=1")
	}
	for _, n := range []int{200, 2000} {
		var b strings.Builder
		b.WriteString("<!doctype html><style>.p{cursor:pointer}</style><body><main>")
		for i := 0; i < n/4; i++ {
			switch i % 5 {
			case 0:
				fmt.Fprintf(&b, `<div class="p" id="c%d"><span>Card %d</span><b>x</b><i>y</i></div>`, i, i)
			default:
				fmt.Fprintf(&b, `<div><span>Text %d</span><b>x</b><i>y</i></div>`, i)
			}
		}
		b.WriteString(`</main><script>for (const el of document.querySelectorAll(".p")) el.addEventListener("click", () => {});</script>`)
		page := b.String()
		srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(page))
		}))
		_, tab := newTab(t)
		if _, err := tab.Navigate(t.Context(), srv.URL); err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		s, err := tab.session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		frame := cdpapi.FrameID(tab.id)
		median := func(f func() int) (time.Duration, int) {
			var ds []time.Duration
			found := 0
			for range 9 {
				start := time.Now()
				found = f()
				ds = append(ds, time.Since(start))
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			return ds[len(ds)/2], found
		}
		snap, nSnap := median(func() int { return len(clickableBackends(ctx, s, frame)) })
		bare, _ := median(func() int {
			if _, err := cdpapi.Call(ctx, s, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{}}); err != nil {
				t.Fatal(err)
			}
			return 0
		})
		ax, _ := median(func() int {
			r, err := cdpapi.Call(ctx, s, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: frame})
			if err != nil {
				t.Fatal(err)
			}
			return len(r.Nodes)
		})
		inPage, nIn := median(func() int {
			world, err := isolatedWorld(ctx, s, frame, "cdpkit-measure")
			if err != nil {
				t.Fatal(err)
			}
			yes := true
			res, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: inPageClickableJS, ContextID: world, ObjectGroup: "m"})
			if err != nil || res.Result == nil {
				t.Fatal(err)
			}
			defer cdpapi.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "m"})
			props, err := cdpapi.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: &yes})
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, p := range props.Result {
				if p.Value == nil || p.Value.Subtype != "node" {
					continue
				}
				if _, err := cdpapi.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: p.Value.ObjectID}); err == nil {
					found++
				}
			}
			return found
		})
		// Listeners: DOMDebugger.getEventListeners needs a handle per
		// element, so every element costs a round trip.
		listeners, nL := median(func() int {
			res, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: `[...document.body.querySelectorAll("*")]`, ObjectGroup: "m"})
			if err != nil || res.Result == nil {
				t.Fatal(err)
			}
			defer cdpapi.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "m"})
			yes := true
			props, err := cdpapi.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: &yes})
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, p := range props.Result {
				if p.Value == nil || p.Value.Subtype != "node" {
					continue
				}
				l, err := cdpapi.Call(ctx, s, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{ObjectID: p.Value.ObjectID})
				if err == nil && len(l.Listeners) > 0 {
					found++
				}
			}
			return found
		})
		full, _ := median(func() int {
			r, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return r.Refs
		})
		t.Logf("%d elements: DOMSnapshot without styles %v; Accessibility.getFullAXTree %v", n, bare.Round(10*time.Microsecond), ax.Round(10*time.Microsecond))
		t.Logf("%d elements: DOMSnapshot %v (%d found); in-page isolated world %v (%d found, no listeners); getEventListeners per element %v (%d found); whole snapshot %v",
			n, snap.Round(10*time.Microsecond), nSnap, inPage.Round(10*time.Microsecond), nIn, listeners.Round(10*time.Microsecond), nL, full.Round(10*time.Microsecond))
	}
}
