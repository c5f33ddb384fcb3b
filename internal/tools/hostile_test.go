package tools

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// hostilePages serves pages that fight the agent: /NAME serves pages[NAME].
func hostilePages(t *testing.T, pages map[string]string) string {
	t.Helper()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	return srv.URL
}

// deadlineSlack is what a call may take past its own deadline: the
// margin the tools promise whatever the page does.
const deadlineSlack = time.Second

// within fails the test if start was longer ago than budget plus
// deadlineSlack: a call returned after its own deadline.
func within(t *testing.T, what string, start time.Time, budget time.Duration) {
	t.Helper()
	if d := time.Since(start); d > budget+deadlineSlack {
		t.Errorf("%s took %v, past its deadline of %v (+%v)", what, d, budget, deadlineSlack)
	}
}

// TestPageCannotStretchADeadline: a page that turns the functions cdpkit's
// hidden-text filter used to call into an endless loop cannot hold a call
// past its deadline (plus slack); each call ends with its result or a
// TIMEOUT, before its own deadline.
func TestPageCannotStretchADeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (hangs pages to their deadlines): skipped by -short")
	}
	t.Parallel()
	base := hostilePages(t, map[string]string{
		"loop": `<!doctype html><title>loop</title><p>LOOP-PAGE</p>
<script>window.getComputedStyle = function () { for (;;) {} };
Element.prototype.getBoundingClientRect = function () { for (;;) {} };</script>`,
		// Churns the heap without end (bounded in size, so the test does
		// not take the machine's memory): the renderer is busy in GC and
		// script nearly all the time, and answers late.
		"churn": `<!doctype html><title>churn</title><p>CHURN-PAGE</p>
<script>setInterval(() => { const a = []; for (let i = 0; i < 3e6; i++) a.push({i, s: "x" + i}); }, 0);</script>`,
	})
	const budget = 4 * time.Second
	ms := budget.Milliseconds()
	// Each page in a scope (browser context) of its own, in parallel.
	for _, tt := range []struct {
		page  string
		calls []struct{ tool, args string }
	}{
		{"loop", []struct{ tool, args string }{
			{"navigate_page", fmt.Sprintf(`{"url":%q,"timeout_ms":%d}`, base+"/loop", ms)},
			{"take_snapshot", fmt.Sprintf(`{"timeout_ms":%d}`, ms)},
			{"get_text", fmt.Sprintf(`{"timeout_ms":%d}`, ms)},
		}},
		{"churn", []struct{ tool, args string }{
			{"new_page", fmt.Sprintf(`{"url":%q,"timeout_ms":%d}`, base+"/churn", ms)},
			{"take_snapshot", fmt.Sprintf(`{"timeout_ms":%d}`, ms)},
			{"get_text", fmt.Sprintf(`{"timeout_ms":%d}`, ms)},
			{"take_screenshot", fmt.Sprintf(`{"timeout_ms":%d}`, ms)},
			{"navigate_page", fmt.Sprintf(`{"type":"reload","timeout_ms":%d}`, ms)},
		}},
	} {
		t.Run(tt.page, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil)
			for _, call := range tt.calls {
				start := time.Now()
				_, err := h.callCtx(t.Context(), call.tool, call.args)
				var te *Error
				if err != nil && (!errors.As(err, &te) || te.Code != Timeout) {
					t.Errorf("%s: %v, want a result or TIMEOUT", call.tool, err)
				}
				within(t, call.tool, start, budget)
			}
		})
	}
}

// TestHiddenFilterIgnoresPageFunctions: the hidden-text filter does not
// run on functions the page can replace, so a page cannot put off-page,
// zero-size or aria-hidden text back into a snapshot or get_text by
// overriding getBoundingClientRect, getComputedStyle or getAttribute.
func TestHiddenFilterIgnoresPageFunctions(t *testing.T) {
	t.Parallel()
	const page = `<!doctype html><title>override</title>
<script>
const box = {x: 10, y: 10, left: 10, top: 10, width: 100, height: 100, right: 110, bottom: 110};
Element.prototype.getBoundingClientRect = function () { return box; };
Element.prototype.getClientRects = function () { return [box]; };
window.getComputedStyle = function () { return {display: "block", overflowX: "visible", overflowY: "visible", position: "static"}; };
Element.prototype.getAttribute = function () { return null; };
</script>
<p>VISIBLE-TEXT</p>
<p style="width:0;height:0;overflow:hidden">HIDDEN-ZERO-SIZE</p>
<p style="position:absolute;left:-10000px;top:0">HIDDEN-OFFSCREEN-LEFT</p>
<p style="position:absolute;top:-10000px">HIDDEN-OFFSCREEN-TOP</p>
<p aria-hidden="true">HIDDEN-ARIA</p>`
	base := hostilePages(t, map[string]string{"p": page})
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/p"))
	for _, call := range []struct{ tool, args string }{
		{"take_snapshot", `{}`},
		{"get_text", `{}`},
		{"get_text", `{"selector":"body"}`},
	} {
		res := h.mustCallText(t, call.tool, call.args)
		if !strings.Contains(res, "VISIBLE-TEXT") {
			t.Fatalf("%s %s does not show the visible text:\n%s", call.tool, call.args, res)
		}
		for _, word := range []string{"HIDDEN-ZERO-SIZE", "HIDDEN-OFFSCREEN-LEFT", "HIDDEN-OFFSCREEN-TOP", "HIDDEN-ARIA"} {
			if strings.Contains(res, word) {
				t.Errorf("%s %s shows %s", call.tool, call.args, word)
			}
		}
	}
}
