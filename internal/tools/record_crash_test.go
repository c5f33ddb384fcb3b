package tools

import (
	"context"
	"errors"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestRecordTabCrashed crashes the recorded tab's renderer: the recording
// is finished with what it has, and the stop returns a playable file.
func TestRecordTabCrashed(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	// A browser of its own: the test crashes a renderer.
	h := newHarness(t, &harnessOptions{Browser: &browser.Options{}})
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/anim.html"}`)
	h.mustCall(t, "start_screen_recording", `{}`)
	h.mustCall(t, "wait_for", `{"time":700}`)
	tab := h.tab(t, "")
	s, err := rawcdp.Session(t.Context(), tab)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	cdpapi.Call(ctx, s, page.Crash, cdpapi.Empty{}) // never answers
	cancel()
	browsertest.Eventually(t, 30*time.Second, func() error {
		if tab.CheckCrashed() == nil {
			return errors.New("the tab did not report its crash")
		}
		return nil
	})
	waitRecordingEnded(t, h, tab.ID())
	res := h.mustCall(t, "stop_screen_recording", `{}`)
	if res["stoppedBy"] != "tab crashed" {
		t.Errorf("stoppedBy = %v, want tab crashed", res["stoppedBy"])
	}
	if dur, _ := probeVideo(t, res["path"].(string)); dur <= 0 {
		t.Errorf("ffprobe duration %v, want a playable video", dur)
	}
}

// waitRecordingEnded waits until tab's recording has ended by itself.
func waitRecordingEnded(t *testing.T, h *harness, tab string) {
	t.Helper()
	browsertest.Eventually(t, 30*time.Second, func() error {
		recordings.mu.Lock()
		defer recordings.mu.Unlock()
		if recordings.ended[recKey{h.env.Browsers, tab}] == nil {
			return errors.New("the recording has not ended by itself")
		}
		return nil
	})
}
