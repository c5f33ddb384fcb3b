package driver

import (
	"errors"
	"fmt"

	_ "golang.org/x/image/webp"
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
	// MaxCaptureHeight is the tallest image one Page.captureScreenshot may
	// return, in device pixels: Chrome's compositor and encoder limit.
	// Taller captures are taken in tiles and stitched.
	MaxCaptureHeight = 16384
	// defaultQuality is Chrome's jpeg and webp quality when none is given.
	defaultQuality = 80
)

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
	// when Ref is empty, a CSS selector (see [TabDriver.Element]). The element is
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

	// MaxTile is the tallest single capture, in device pixels; zero
	// means the default. Tests lower it to force tiling.
	MaxTile int
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

	// Tiles counts the captures stitched into Data.
	Tiles int
}

// Normalize checks o and fills in its defaults.
func (o *ScreenshotOptions) Normalize() error {
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
	if o.MaxTile == 0 {
		o.MaxTile = MaxCaptureHeight
	}
	return nil
}
