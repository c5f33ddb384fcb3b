package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestClickAt clicks a button at the coordinates a viewport screenshot
// shows it at: at full size, then with the screenshot downscaled for the
// model (a viewport wider than the inline image's 2,000 px), and checks
// what was hit and that the click landed (issue #24 item 11).
func TestClickAt(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>0</title><style>body{margin:0} #b{position:absolute;left:600px;top:300px;width:200px;height:100px}</style>
<button id=b onclick="document.title = +document.title + 1">Press</button>`)
	}))
	h := newHarness(t, nil)
	for _, tt := range []struct {
		name          string
		width, height int
	}{{"full size", 1000, 600}, {"downscaled", 3000, 900}} {
		t.Run(tt.name, func(t *testing.T) {
			h.mustCall(t, "resize_page", fmt.Sprintf(`{"width":%d,"height":%d}`, tt.width, tt.height))
			h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL))
			shot, err := h.result(t, "take_screenshot", `{}`)
			if err != nil {
				t.Fatal(err)
			}
			data := shot.Data.(screenshotData)
			w, hgt := data.Width, data.Height
			if data.Inline != nil {
				w, hgt = data.Inline.Width, data.Inline.Height
			}
			if (tt.width > maxInlineSide) != (w < tt.width) {
				t.Fatalf("the image the model sees is %dx%d of a %dx%d viewport", w, hgt, tt.width, tt.height)
			}
			// The button's center (700, 350) in the image's pixels.
			f := float64(w) / float64(tt.width)
			res := h.mustCall(t, "click_at", fmt.Sprintf(`{"x":%.1f,"y":%.1f}`, 700*f, 350*f))
			if hit := fmt.Sprint(res["hit"]); !strings.HasPrefix(hit, `button#b "Press"`) {
				t.Errorf("click_at hit %q, want the button", hit)
			}
			if ch, _ := res["changes"].(map[string]any); ch == nil || ch["title"] != "1" {
				t.Errorf("click_at changes = %v, want the title 1 the button set", res["changes"])
			}
			miss := h.mustCall(t, "click_at", fmt.Sprintf(`{"x":%.1f,"y":%.1f}`, 100*f, 100*f))
			if hit := fmt.Sprint(miss["hit"]); strings.Contains(hit, "button") {
				t.Errorf("click_at beside the button hit %q", hit)
			}
		})
	}
	_, err := h.call(t, "click_at", `{"x":-5,"y":10}`)
	wantCode(t, err, InvalidArgs, "-5")
	_, err = h.call(t, "click_at", `{"x":99999,"y":10}`)
	wantCode(t, err, InvalidArgs, "outside")
}
