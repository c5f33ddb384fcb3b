package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestCancelledFullPageKeepsViewport is a regression test (issue #24 bug
// 2): a full-page capture that runs out of time mid-way must leave the
// viewport as it was, so that the tab's next capture and resize work.
func TestCancelledFullPageKeepsViewport(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<!doctype html><title>tall</title><style>p{margin:0;height:40px;background:linear-gradient(90deg,red,blue)}</style>`)
		for i := range 600 {
			fmt.Fprintf(&b, "<p>row %d</p>", i)
		}
		fmt.Fprint(w, b.String())
	}))
	h := newHarness(t, nil)
	h.mustCall(t, "resize_page", `{"width":700,"height":500}`)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL))
	size := func(t *testing.T) string {
		t.Helper()
		out := h.mustCall(t, "evaluate_script", `{"function":"() => innerWidth + 'x' + innerHeight"}`)
		return fmt.Sprint(out["value"])
	}
	if got := size(t); got != "700x500" {
		t.Fatalf("viewport before = %s, want 700x500", got)
	}
	for _, ms := range []int{50, 300} {
		// Too short for a 24,000 px page: the capture stops mid-way.
		_, err := h.call(t, "take_screenshot", fmt.Sprintf(`{"fullPage":true,"timeout_ms":%d}`, ms))
		if err == nil {
			t.Logf("the full-page capture finished within %d ms", ms)
		}
		if got := size(t); got != "700x500" {
			t.Errorf("viewport after a cut-short full-page capture = %s, want 700x500", got)
		}
		shot := h.mustCall(t, "take_screenshot", `{}`)
		if shot["width"].(float64) != 700 || shot["height"].(float64) != 500 {
			t.Errorf("viewport screenshot after it = %vx%v, want 700x500", shot["width"], shot["height"])
		}
	}
}
