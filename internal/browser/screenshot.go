package browser

import (
	"context"
	"math"
	"runtime/debug"
	"time"

	_ "golang.org/x/image/webp" // DecodeConfig for webp captures

	"github.com/cdpkit/cdpkit/internal/driver"
)

const (

	// maxCaptureWidth bounds the width the same way; wider regions are
	// downscaled, never tiled.
	maxCaptureWidth = 16384
	// maxWebPSide is the WebP format's limit on either side. WebP cannot be
	// stitched (Go has no WebP encoder), so taller regions are downscaled.
	maxWebPSide = 16383

	// fitQuality is the quality a lossy capture drops to before it is
	// downscaled to fit MaxBytes.
	fitQuality = 50
	// maxFitAttempts bounds the captures spent fitting MaxBytes.
	maxFitAttempts = 4
	// minFitSide is the smallest side a capture is shrunk to when fitting
	// MaxBytes; below it the capture is refused as too large.
	minFitSide = 32
	// scrollBudget bounds the scroll through a page before a full-page
	// capture.
	scrollBudget = 3 * time.Second
)

// releaseAbove is how much image data a screenshot call may bring in
// before it hands the memory back to the OS when it returns. A large
// capture costs several times its size on the way in (the message, its
// base64 text, the decoded bytes, tiles and their stitching); the Go
// runtime keeps freed memory for reuse and returns it only slowly, so
// after one 30,000-pixel page cdpkit stayed at hundreds of MB resident
// (issue #25 item 17).
const releaseAbove = 16 << 20

// releaseMemory collects garbage and returns freed memory to the OS at
// once. It costs one full collection, which only a call that brought in
// more than releaseAbove pays.
func releaseMemory() { debug.FreeOSMemory() }

// rect is a region in CSS pixels, in document coordinates.
type rect struct{ X, Y, W, H float64 }

// tile is one capture of a tiled plan: rows [Y, Y+H) of the region in CSS
// pixels, drawn at row DstY of the stitched image.
type tile struct {
	Y, H float64
	DstY int
}

// capturePlan says how to capture a region: the clip scale and the tiles.
type capturePlan struct {
	Scale float64 // clip scale; image px = CSS px × device pixel ratio × Scale
	Tiles []tile  // one unless the image is taller than one capture allows
}

// Screenshot captures the tab's viewport, its whole page, or one element,
// as o says. The context bounds the whole call, including the scroll
// through a page and any captures retried to fit the limits.
//
// Argument errors wrap ErrInvalidArgument; element errors are
// *ElementError (see [Tab.Element], and ErrElementNotVisible); a capture
// that cannot fit MaxBytes is a *ScreenshotTooLargeError.
func (t *Tab) Screenshot(ctx context.Context, o driver.ScreenshotOptions) (*driver.Screenshot, error) {
	if err := o.Normalize(); err != nil {
		return nil, err
	}
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	driver.Step(ctx, "capturing the screenshot")
	maxW, maxH := maxCaptureWidth, math.MaxInt32
	if o.Format == "webp" {
		maxW, maxH = maxWebPSide, maxWebPSide
	}
	var region rect
	var dpr float64
	kind := viewportCapture
	view, gen, known := t.knownView()
	if known && o.Ref == "" && o.Selector == "" && !o.FullPage && planScale(view.W, view.H, view.DPR, o.MaxPixels, maxW, maxH) != 1 {
		known = false // a downscaled viewport is clipped, at the page's scroll offset
	}
	switch {
	case o.Ref != "" || o.Selector != "":
		var inView bool
		region, inView, err = t.elementRegion(ctx, s, o.Ref, o.Selector)
		kind = elementCapture
		if inView {
			kind = elementInViewCapture
		}
		if known {
			dpr = view.DPR
		}
	case o.FullPage:
		var fits bool
		region, dpr, fits, err = fullPageRegion(ctx, s)
		if !fits {
			kind = pageCapture
		}
	case known:
		// The viewport as the last capture saw it: no round trip to the
		// page. Its offset matters only to a clip, for a downscale.
		region, dpr = rect{W: view.W, H: view.H}, view.DPR
	default:
		// One page call gives both the viewport and the pixel ratio.
		region, dpr, err = viewportAndRatio(ctx, s)
	}
	viewport := kind == viewportCapture
	if err != nil {
		return nil, err
	}
	if dpr == 0 {
		if dpr, err = devicePixelRatio(ctx, s); err != nil {
			return nil, err
		}
	}
	plan := planCapture(region.W, region.H, dpr, planScale(region.W, region.H, dpr, o.MaxPixels, maxW, maxH), o.MaxTile)
	quality := o.Quality
	var smallest *driver.Screenshot // the smallest encoding so far, for the error
	received := 0                   // bytes of image data the captures brought
	defer func() {
		if received >= releaseAbove {
			releaseMemory()
		}
	}()
	for attempt := 1; ; attempt++ {
		shot, err := capture(ctx, s, region, plan, o.Format, quality, kind)
		if err != nil {
			return nil, err
		}
		if viewport && plan.Scale == 1 && attempt == 1 {
			if known && (shot.Width != view.ImgW || shot.Height != view.ImgH) {
				// The view changed behind the cache (a window resized):
				// measure it and capture again if it now needs a downscale.
				t.emu.view.invalidate()
				return t.Screenshot(ctx, o)
			}
			if !known && dpr > 0 {
				t.emu.view.put(gen, shotView{W: region.W, H: region.H, DPR: dpr, ImgW: shot.Width, ImgH: shot.Height})
			}
		}
		received += len(shot.Data)
		if shot.Tiles > 1 {
			received += 4 * shot.Width * shot.Height // the stitched canvas
		}
		shot.Scale = dpr * plan.Scale
		shot.Downscaled = plan.Scale < 1
		if len(shot.Data) <= o.MaxBytes {
			return shot, nil
		}
		if smallest == nil || len(shot.Data) < len(smallest.Data) {
			smallest = shot
		}
		// Bytes grow about with pixels: aim 10% under the limit.
		next := plan.Scale * 0.9 * math.Sqrt(float64(o.MaxBytes)/float64(len(shot.Data)))
		lossy := o.Format != "png"
		switch {
		case attempt == maxFitAttempts:
		case lossy && quality > fitQuality:
			quality = fitQuality
			continue
		case math.Min(region.W, region.H)*dpr*next >= minFitSide:
			plan = planCapture(region.W, region.H, dpr, next, o.MaxTile)
			continue
		}
		return nil, &driver.ScreenshotTooLargeError{Bytes: len(smallest.Data), Limit: o.MaxBytes, Width: smallest.Width, Height: smallest.Height}
	}
}
