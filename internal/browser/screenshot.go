package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	_ "golang.org/x/image/webp" // DecodeConfig for webp captures
)

// Screenshot limits.
const (
	// DefaultMaxScreenshotPixels bounds a capture's width × height when
	// ScreenshotOptions.MaxPixels is zero: 4096 × 4096.
	DefaultMaxScreenshotPixels = 4096 * 4096
	// DefaultMaxImageBytes bounds an encoded capture when
	// ScreenshotOptions.MaxBytes is zero: 5 MiB.
	DefaultMaxImageBytes = 5 << 20
)

const (
	// maxCaptureHeight is the tallest image one Page.captureScreenshot may
	// return, in device pixels: Chrome's compositor and encoder limit.
	// Taller captures are taken in tiles and stitched.
	maxCaptureHeight = 16384
	// maxCaptureWidth bounds the width the same way; wider regions are
	// downscaled, never tiled.
	maxCaptureWidth = 16384
	// maxWebPSide is the WebP format's limit on either side. WebP cannot be
	// stitched (Go has no WebP encoder), so taller regions are downscaled.
	maxWebPSide = 16383
	// defaultQuality is Chrome's jpeg and webp quality when none is given.
	defaultQuality = 80
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

// ErrScreenshotTooLarge means a capture cannot be made to fit the byte
// limit, even downscaled. The error is a *ScreenshotTooLargeError.
var ErrScreenshotTooLarge = errors.New("browser: screenshot too large")

// ErrElementNotVisible means an element has no box to capture: it is not
// rendered (display: none, detached) or has zero size. It comes wrapped in
// an *ElementError.
var ErrElementNotVisible = errors.New("browser: element is not visible")

// ScreenshotTooLargeError says how far the smallest attempt was from the
// limit.
type ScreenshotTooLargeError struct {
	Bytes  int // the smallest encoding reached
	Limit  int // MaxBytes
	Width  int // its size in pixels
	Height int
}

func (e *ScreenshotTooLargeError) Error() string {
	return fmt.Sprintf("browser: screenshot is %d bytes at %dx%d, over the %d-byte limit", e.Bytes, e.Width, e.Height, e.Limit)
}

func (e *ScreenshotTooLargeError) Unwrap() error { return ErrScreenshotTooLarge }

// ScreenshotOptions say what to capture and how to encode it. The zero
// value captures the viewport as PNG within the default limits.
type ScreenshotOptions struct {
	// Format is "png" (the default), "jpeg" or "webp".
	Format string
	// Quality is 1–100 for jpeg and webp; 0 means 80. It must be 0 for png.
	Quality int
	// FullPage captures the whole document instead of the viewport. The
	// page is first scrolled through so lazy content paints (a page that
	// fits its viewport is not scrolled), then put back where it was; the
	// viewport is never resized. Calls acting on the tab
	// meanwhile see it scrolled. Fixed elements are painted once, where
	// the page is scrolled to.
	FullPage bool
	// Ref or Selector captures one element: a snapshot ref ("e12") or,
	// when Ref is empty, a CSS selector (see [Tab.Element]). The element is
	// scrolled into view. Not with FullPage.
	Ref      string
	Selector string
	// MaxPixels bounds width × height of the image; larger regions are
	// captured downscaled, never cropped. Zero means
	// DefaultMaxScreenshotPixels.
	MaxPixels int
	// MaxBytes bounds the encoded image; a larger one is captured again at a
	// lower quality (jpeg, webp) or smaller scale until it fits, else the
	// call fails with ErrScreenshotTooLarge. Zero means DefaultMaxImageBytes.
	MaxBytes int

	maxTile int // tests lower maxCaptureHeight to force tiling
}

// Screenshot is an encoded image with its real size, read from its bytes.
type Screenshot struct {
	Data   []byte
	Format string // "png", "jpeg" or "webp"
	// Quality is the jpeg or webp quality used; 0 for png.
	Quality int
	Width   int
	Height  int
	// Scale is image pixels per CSS pixel: the device pixel ratio times any
	// downscale applied to fit the limits.
	Scale float64
	// Downscaled reports that the image has fewer pixels than the device
	// would paint, to fit MaxPixels, MaxBytes or a format's size limit.
	Downscaled bool

	tiles int // captures stitched into Data
}

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
func (t *Tab) Screenshot(ctx context.Context, o ScreenshotOptions) (*Screenshot, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	Step(ctx, "capturing the screenshot")
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
	plan := planCapture(region.W, region.H, dpr, planScale(region.W, region.H, dpr, o.MaxPixels, maxW, maxH), o.maxTile)
	quality := o.Quality
	var smallest *Screenshot // the smallest encoding so far, for the error
	received := 0            // bytes of image data the captures brought
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
		if shot.tiles > 1 {
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
			plan = planCapture(region.W, region.H, dpr, next, o.maxTile)
			continue
		}
		return nil, &ScreenshotTooLargeError{Bytes: len(smallest.Data), Limit: o.MaxBytes, Width: smallest.Width, Height: smallest.Height}
	}
}

// normalize checks o and fills in its defaults.
func (o *ScreenshotOptions) normalize() error {
	if o.Format == "" {
		o.Format = "png"
	}
	switch o.Format {
	case "png":
		if o.Quality != 0 {
			return fmt.Errorf("%w: quality is for jpeg and webp, not png", ErrInvalidArgument)
		}
	case "jpeg", "webp":
		if o.Quality == 0 {
			o.Quality = defaultQuality
		}
	default:
		return fmt.Errorf("%w: screenshot format %q: want png, jpeg or webp", ErrInvalidArgument, o.Format)
	}
	switch {
	case o.Quality < 0 || o.Quality > 100:
		return fmt.Errorf("%w: quality %d: want 1-100", ErrInvalidArgument, o.Quality)
	case o.Ref != "" && o.Selector != "":
		return fmt.Errorf("%w: give a ref or a selector, not both", ErrInvalidArgument)
	case o.FullPage && (o.Ref != "" || o.Selector != ""):
		return fmt.Errorf("%w: a full-page capture takes no element", ErrInvalidArgument)
	case o.MaxPixels < 0 || o.MaxBytes < 0:
		return fmt.Errorf("%w: negative screenshot limit", ErrInvalidArgument)
	}
	if o.MaxPixels == 0 {
		o.MaxPixels = DefaultMaxScreenshotPixels
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxImageBytes
	}
	if o.maxTile == 0 {
		o.maxTile = maxCaptureHeight
	}
	return nil
}
