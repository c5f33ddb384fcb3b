package tools

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
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

// TestFitFrame scales a stand-in frame as the screencast scales frames.
func TestFitFrame(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 1000, 500))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o          driver.ScreencastOptions
		w, h       int
		wantFormat string
	}{
		{driver.ScreencastOptions{Format: "png"}, 1000, 500, "png"},
		{driver.ScreencastOptions{Format: "png", MaxWidth: 400}, 400, 200, "png"},
		{driver.ScreencastOptions{Format: "jpeg", MaxWidth: 400, MaxHeight: 100}, 200, 100, "jpeg"},
	} {
		out, err := fitFrame(buf.Bytes(), tc.o)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(out))
		if err != nil || cfg.Width != tc.w || cfg.Height != tc.h || (tc.o.MaxWidth > 0 && format != tc.wantFormat) {
			t.Errorf("fitFrame(%+v) = %s %dx%d (%v), want %dx%d", tc.o, format, cfg.Width, cfg.Height, err, tc.w, tc.h)
		}
	}
}
