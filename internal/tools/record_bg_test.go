package tools

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestRecordBackgroundTab records a tab opened in the background: the
// start brings it to the front, where it paints.
func TestRecordBackgroundTab(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	id := h.mustCall(t, "new_page", `{"url":"`+srv.URL+`/anim.html","background":true}`)["id"].(string)
	h.mustCall(t, "start_screen_recording", `{"target":"`+id+`"}`)
	h.mustCall(t, "wait_for", `{"time":1000}`)
	res := h.mustCall(t, "stop_screen_recording", `{"target":"`+id+`"}`)
	if n := res["frameCount"].(float64); n < 1 {
		t.Errorf("frameCount = %v, want frames from the background tab", n)
	}
}
