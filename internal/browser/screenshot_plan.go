package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // DecodeConfig for webp captures

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// planScale returns the clip scale at which a w × h CSS-pixel region,
// painted at dpr device pixels per CSS pixel, fits maxPixels and the
// maxW × maxH size limit: 1 when it fits as it is.
func planScale(w, h, dpr float64, maxPixels, maxW, maxH int) float64 {
	dw, dh := w*dpr, h*dpr
	if dw <= 0 || dh <= 0 {
		return 1
	}
	s := 1.0
	if dw*dh > float64(maxPixels) {
		s = math.Sqrt(float64(maxPixels) / (dw * dh))
	}
	s = math.Min(s, float64(maxW)/dw)
	s = math.Min(s, float64(maxH)/dh)
	// Chrome rounds the image size up; keep the rounded size in bounds.
	for s > 0 && (math.Ceil(dw*s)*math.Ceil(dh*s) > float64(maxPixels) || math.Ceil(dw*s) > float64(maxW) || math.Ceil(dh*s) > float64(maxH)) {
		s *= 0.999
	}
	return s
}

// planCapture splits an h-CSS-pixel-tall region captured at the given
// scale into tiles no taller than maxTile image pixels. Tiles overlap by
// one CSS pixel so that rounding leaves no gap between them; each is
// drawn at its rounded position, over the previous one's last rows.
func planCapture(w, h, dpr, scale float64, maxTile int) capturePlan {
	px := dpr * scale // image px per CSS px
	if h*px <= float64(maxTile) {
		return capturePlan{Scale: scale, Tiles: []tile{{Y: 0, H: h}}}
	}
	step := math.Floor((float64(maxTile) - 2*px - 1) / px) // room for the overlap and rounding
	if step < 1 {
		step = 1
	}
	var tiles []tile
	for y := 0.0; y < h; y += step {
		tiles = append(tiles, tile{Y: y, H: math.Min(step+1, h-y), DstY: int(math.Round(y * px))})
	}
	return capturePlan{Scale: scale, Tiles: tiles}
}

// What a capture is of.
type captureKind int

const (
	viewportCapture captureKind = iota
	pageCapture
	elementCapture       // an element that reaches out of the viewport
	elementInViewCapture // an element all in the viewport: no capture beyond it
)

// capture takes the planned captures of region and returns one image. In
// the viewport at full scale it captures without a clip: a clip is in
// document coordinates and needs the scroll offset added.
func capture(ctx context.Context, s *cdp.Session, region rect, plan capturePlan, format string, quality int, kind captureKind) (*driver.Screenshot, error) {
	// optimizeForSpeed but for an element: with it and a clip beyond the
	// viewport, an element in an out-of-process frame came out blank
	// (TestScreenshotElementInFrame).
	var speed *bool
	if kind != elementCapture && kind != elementInViewCapture {
		speed = &fast
	}
	if len(plan.Tiles) == 1 {
		p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(format), OptimizeForSpeed: speed}
		if format != "png" {
			q := int64(quality)
			p.Quality = &q
		}
		if kind != viewportCapture || plan.Scale != 1 {
			p.Clip = &page.Viewport{X: region.X, Y: region.Y, Width: region.W, Height: region.H, Scale: plan.Scale}
			// Capturing beyond the viewport lays the page out again at
			// the clip's size: an out-of-process frame must then paint
			// anew, and a capture that came first showed it blank
			// (TestScreenshotElementInFrame, on a loaded machine).
			beyond := kind == pageCapture || kind == elementCapture
			p.CaptureBeyondViewport = &beyond
		}
		data, err := captureOnce(ctx, s, p)
		if err != nil {
			return nil, err
		}
		return decoded(data, format, quality, 1)
	}
	// Tiles come as PNG, lossless, and are encoded once when stitched.
	// WebP is never tiled: planScale keeps it within one capture.
	var canvas *image.NRGBA
	for i, tl := range plan.Tiles {
		beyond := true
		data, err := captureOnce(ctx, s, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			OptimizeForSpeed:      speed,
			Clip:                  &page.Viewport{X: region.X, Y: region.Y + tl.Y, Width: region.W, Height: tl.H, Scale: plan.Scale},
			CaptureBeyondViewport: &beyond,
		})
		if err != nil {
			return nil, fmt.Errorf("%w (tile %d of %d)", err, i+1, len(plan.Tiles))
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("browser: decoding screenshot tile: %w", err)
		}
		if canvas == nil {
			// Room for the last tile at this tile's pixels per CSS pixel,
			// and for rounding; cut to the real end below.
			last := plan.Tiles[len(plan.Tiles)-1]
			h := last.DstY + int(math.Ceil(last.H*float64(img.Bounds().Dy())/tl.H)) + 2
			canvas = image.NewNRGBA(image.Rect(0, 0, img.Bounds().Dx(), h))
		}
		draw.Draw(canvas, img.Bounds().Add(image.Pt(0, tl.DstY)), img, img.Bounds().Min, draw.Src)
		if i == len(plan.Tiles)-1 {
			canvas = canvas.SubImage(image.Rect(0, 0, canvas.Bounds().Dx(), tl.DstY+img.Bounds().Dy())).(*image.NRGBA)
		}
	}
	data, err := encode(canvas, format, quality)
	if err != nil {
		return nil, err
	}
	return decoded(data, format, quality, len(plan.Tiles))
}

// fast asks the browser's encoder for speed over size (optimizeForSpeed):
// a larger PNG sooner; make bench -floors compares it with the bare capture.
var fast = true

func captureOnce(ctx context.Context, s *cdp.Session, p page.CaptureScreenshotParams) ([]byte, error) {
	res, err := cdpapi.Call(ctx, s, page.CaptureScreenshot, p)
	if err != nil {
		return nil, fmt.Errorf("browser: capturing screenshot: %w", err)
	}
	return res.Data, nil
}

// decoded wraps encoded image data with its real size.
func decoded(data []byte, format string, quality, tiles int) (*driver.Screenshot, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("browser: reading screenshot size: %w", err)
	}
	if format == "png" {
		quality = 0
	}
	return &driver.Screenshot{Data: data, Format: format, Quality: quality, Width: cfg.Width, Height: cfg.Height, Tiles: tiles}, nil
}

// encode encodes a stitched image as png or jpeg.
func encode(img image.Image, format string, quality int) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality})
	default:
		err = fmt.Errorf("cannot encode %s", format)
	}
	if err != nil {
		return nil, fmt.Errorf("browser: encoding screenshot: %w", err)
	}
	return buf.Bytes(), nil
}
