package browser

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestScreenshotViewportCache checks that a viewport capture which plans
// from the cached view still reports the view as it is: after SetViewport,
// after a resize behind cdpkit's back, and under mobile emulation, where
// the page decides the CSS pixels the view holds.
func TestScreenshotViewportCache(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/stripes.html")
	check := func(t *testing.T, wantW, wantH int, wantScale float64) {
		t.Helper()
		shot, _ := takeShot(t, tab, driver.ScreenshotOptions{})
		if shot.Width != wantW || shot.Height != wantH || shot.Scale != wantScale {
			t.Errorf("viewport capture = %dx%d at scale %v, want %dx%d at scale %v", shot.Width, shot.Height, shot.Scale, wantW, wantH, wantScale)
		}
	}
	if _, err := tab.SetViewport(t.Context(), &driver.Viewport{Width: 800, Height: 500, DeviceScaleFactor: 1}); err != nil {
		t.Fatalf("SetViewport: %v", err)
	}
	check(t, 800, 500, 1)
	if _, _, ok := tab.knownView(); !ok {
		t.Fatal("no view cached after a viewport capture")
	}
	check(t, 800, 500, 1)

	t.Run("SetViewport", func(t *testing.T) {
		if _, err := tab.SetViewport(t.Context(), &driver.Viewport{Width: 640, Height: 480, DeviceScaleFactor: 1}); err != nil {
			t.Fatalf("SetViewport: %v", err)
		}
		check(t, 640, 480, 1)
	})
	t.Run("resized behind the cache", func(t *testing.T) {
		s, err := tab.session(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := applyViewport(t.Context(), s, &driver.Viewport{Width: 600, Height: 400, DeviceScaleFactor: 2}); err != nil {
			t.Fatalf("applyViewport: %v", err)
		}
		check(t, 1200, 800, 2)
		check(t, 1200, 800, 2)
	})
	t.Run("mobile", func(t *testing.T) {
		if _, err := tab.SetViewport(t.Context(), &driver.Viewport{Width: 390, Height: 844, DeviceScaleFactor: 2, Mobile: true}); err != nil {
			t.Fatalf("SetViewport: %v", err)
		}
		// The page's <meta name=viewport>, which each navigation may
		// change, decides how many CSS pixels the view holds: not cached.
		check(t, 780, 1688, 2)
		if _, _, ok := tab.knownView(); ok {
			t.Error("a view is cached under mobile emulation")
		}
	})
}

// TestScreenshotFullPageThatFits checks that the full page of a document
// all in view, captured as the viewport without a clip, is the viewport's
// image.
func TestScreenshotFullPageThatFits(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/fits.html")
	view, viewImg := takeShot(t, tab, driver.ScreenshotOptions{})
	full, fullImg := takeShot(t, tab, driver.ScreenshotOptions{FullPage: true})
	if full.Width != view.Width || full.Height != view.Height || full.Scale != view.Scale {
		t.Fatalf("full page = %dx%d at %v, want the viewport's %dx%d at %v", full.Width, full.Height, full.Scale, view.Width, view.Height, view.Scale)
	}
	for _, p := range [][2]int{{5, 5}, {view.Width / 2, view.Height / 2}, {view.Width - 5, view.Height - 5}} {
		if a, b := rgb(viewImg, p[0], p[1]), rgb(fullImg, p[0], p[1]); !near(a, b, 2) {
			t.Errorf("pixel %v: full page %06x, viewport %06x", p, b, a)
		}
	}
}
