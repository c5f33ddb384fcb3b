package browser

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestScreenshot(t *testing.T) {
	t.Parallel()
	srv := serveFixtures(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/paint.html"); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	innerW, innerH := viewport(t, tab)
	t.Logf("viewport of a new tab under --window-size=1280,720: %dx%d", innerW, innerH)
	if innerW != 1280 {
		t.Errorf("viewport width = %d, want 1280 from --window-size", innerW)
	}

	tests := []struct {
		opts    driver.ScreenshotOptions
		format  string
		decoder func(*bytes.Reader) (image.Image, error)
	}{
		{driver.ScreenshotOptions{}, "png", func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }},
		{driver.ScreenshotOptions{Format: "png"}, "png", func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }},
		{driver.ScreenshotOptions{Format: "jpeg"}, "jpeg", func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }},
		{driver.ScreenshotOptions{Format: "jpeg", Quality: 10}, "jpeg", func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }},
		{driver.ScreenshotOptions{Format: "jpeg", Quality: 95}, "jpeg", func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }},
	}
	sizes := map[int]int{} // jpeg quality → bytes
	for _, tt := range tests {
		shot, err := tab.Screenshot(t.Context(), tt.opts)
		if err != nil {
			t.Errorf("Screenshot(%+v): %v", tt.opts, err)
			continue
		}
		if shot.Format != tt.format {
			t.Errorf("Screenshot(%+v).Format = %q, want %q", tt.opts, shot.Format, tt.format)
		}
		img, err := tt.decoder(bytes.NewReader(shot.Data))
		if err != nil {
			t.Errorf("Screenshot(%+v): decoding %s: %v", tt.opts, tt.format, err)
			continue
		}
		b := img.Bounds()
		if b.Dx() != shot.Width || b.Dy() != shot.Height {
			t.Errorf("Screenshot(%+v) says %dx%d, image is %dx%d", tt.opts, shot.Width, shot.Height, b.Dx(), b.Dy())
		}
		if shot.Width != innerW || shot.Height != innerH {
			t.Errorf("Screenshot(%+v) is %dx%d, want the viewport's %dx%d", tt.opts, shot.Width, shot.Height, innerW, innerH)
		}
		if tt.format == "jpeg" {
			sizes[tt.opts.Quality] = len(shot.Data)
		}
	}
	if sizes[10] >= sizes[95] {
		t.Errorf("jpeg quality 10 is %d bytes, quality 95 is %d; want quality to shrink the image", sizes[10], sizes[95])
	}

	for _, format := range []string{"gif", "PNG", "jpg"} {
		if shot, err := tab.Screenshot(t.Context(), driver.ScreenshotOptions{Format: format}); err == nil {
			t.Errorf("Screenshot(format %q) = %s %dx%d, want an error", format, shot.Format, shot.Width, shot.Height)
		}
	}
}

// viewport returns the tab's window.innerWidth and innerHeight.
func viewport(t *testing.T, tab *Tab) (int, int) {
	t.Helper()
	return evalInt(t, tab, "window.innerWidth"), evalInt(t, tab, "window.innerHeight")
}

// evalInt evaluates a JavaScript expression with an integer value in tab.
func evalInt(t *testing.T, tab *Tab, expr string) int {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    expr,
		ReturnByValue: ptr(true),
	})
	if err != nil {
		t.Fatalf("Evaluate(%s): %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("Evaluate(%s): %s", expr, res.ExceptionDetails.Text)
	}
	var n float64
	if err := json.Unmarshal(res.Result.Value, &n); err != nil {
		t.Fatalf("Evaluate(%s) = %s, want a number (%v)", expr, res.Result.Value, err)
	}
	return int(n)
}
